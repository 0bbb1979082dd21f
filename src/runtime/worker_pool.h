#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace geoalign::runtime {

// A few threads that run posted tasks in order of posting. For work a caller must not do
// on its own thread (the server's I/O thread must not parse or render a large JSON
// body). A task must not throw; what one throws is reported on stderr and goes no
// further. The destructor runs every task posted before it, then joins.
class WorkerPool {
 public:
  // `on_start` runs first on each thread (its scheduling priority, its OpenMP threads).
  WorkerPool(std::size_t threads, std::function<void()> on_start = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void post(std::function<void()> task);

 private:
  void run(const std::function<void()>& on_start);

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace geoalign::runtime
