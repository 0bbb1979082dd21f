#include "runtime/worker_pool.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace geoalign::runtime {

WorkerPool::WorkerPool(std::size_t threads, std::function<void()> on_start) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
    threads_.emplace_back([this, on_start] { run(on_start); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void WorkerPool::run(const std::function<void()>& on_start) {
  if (on_start) on_start();
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "geoalign: a background task failed: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "geoalign: a background task failed\n");
    }
  }
}

}  // namespace geoalign::runtime
