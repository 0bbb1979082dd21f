#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>

namespace geoalign::cpu {

// Whether the caller runs inside a parallel region. A build without OpenMP (the fuzz
// targets) has none, and its pragmas are ignored.
inline bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

// The exception of the lowest-numbered item of a parallel loop that threw. An exception
// that leaves an OpenMP region ends the process (std::terminate), so every loop below
// catches each item's, keeps the first in item order, and rethrows it once the region
// has ended. Items after a failed one are skipped; items before it still run, so the
// exception kept is the same whatever the threads' timing.
class FirstFailure {
 public:
  // True when an item numbered below `item` has failed: `item` need not run.
  bool passed(std::int64_t item) const { return item > index_.load(std::memory_order_relaxed); }
  // Keeps the exception being handled (call inside a catch block) if `item` is the lowest so far.
  void record(std::int64_t item) noexcept {
    const std::lock_guard lock(mutex_);
    if (item < index_.load(std::memory_order_relaxed)) {
      error_ = std::current_exception();
      index_.store(item, std::memory_order_relaxed);
    }
  }
  explicit operator bool() const { return static_cast<bool>(error_); }
  std::int64_t index() const { return index_.load(std::memory_order_relaxed); }
  const std::exception_ptr& error() const { return error_; }
  void rethrow_if_failed() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<std::int64_t> index_{std::numeric_limits<std::int64_t>::max()};
  std::mutex mutex_;
  std::exception_ptr error_;
};

// Runs fn(i) for one item, keeping its exception in `failure`.
template <typename Fn>
void run_item(std::int64_t i, Fn& fn, FirstFailure& failure) {
  if (failure.passed(i)) return;
  try {
    fn(i);
  } catch (...) {
    failure.record(i);
  }
}

// Splits [0, n) over the persistent OpenMP pool that oneDNN also runs on, so our kernels
// and GEMMs never oversubscribe the cores. Each thread takes one contiguous share: for
// items that cost the same (rows of a matrix). Called inside a parallel region (a
// thread's share of a layer), it runs on the calling thread alone, as a plain loop: a
// nested region, even of one thread, costs libgomp a team allocated and freed, and a run
// of the blocked layers makes tens of thousands of such calls. One item runs on the
// caller too: a region would only wait for a worker to wake and reach its barrier (on
// cores shared with other work, a scheduler slice). Returns the failure of the
// lowest-numbered item that threw, if any, without throwing.
template <typename Fn>
void parallel_for_collect(std::int64_t n, Fn&& fn, FirstFailure& failure) {
  if (n <= 1 || in_parallel_region()) {
    for (std::int64_t i = 0; i < n; ++i) run_item(i, fn, failure);
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) run_item(i, fn, failure);
}

// For items whose costs differ (addresses to parse, sequences of a batch sorted by
// length, where equal shares left one thread all the long ones): threads take `grain`
// items at a time as they finish.
template <typename Fn>
void parallel_for_dynamic_collect(std::int64_t n, [[maybe_unused]] std::int64_t grain, Fn&& fn, FirstFailure& failure) {
  if (n <= 1 || in_parallel_region()) {
    for (std::int64_t i = 0; i < n; ++i) run_item(i, fn, failure);
    return;
  }
#pragma omp parallel for schedule(dynamic, grain)
  for (std::int64_t i = 0; i < n; ++i) run_item(i, fn, failure);
}

// parallel_for_collect, rethrowing the lowest-numbered item's exception on the caller's thread.
template <typename Fn>
void parallel_for(std::int64_t n, Fn&& fn) {
  FirstFailure failure;
  parallel_for_collect(n, fn, failure);
  failure.rethrow_if_failed();
}

// parallel_for_dynamic_collect, rethrowing the lowest-numbered item's exception on the caller's thread.
template <typename Fn>
void parallel_for_dynamic(std::int64_t n, std::int64_t grain, Fn&& fn) {
  FirstFailure failure;
  parallel_for_dynamic_collect(n, grain, fn, failure);
  failure.rethrow_if_failed();
}

// Runs first() on the calling thread and second() on another thread of the pool at the
// same time (both on the caller, one after the other, where the pool has one thread);
// the parallel loops inside each run on its thread alone. For two jobs that each gain
// less from the cores than from running beside the other. Rethrows first()'s exception,
// else second()'s, once both have ended.
template <typename First, typename Second>
void run_side_by_side(First&& first, Second&& second) {
  parallel_for(2, [&](std::int64_t job) { job == 0 ? first() : second(); });
}

// Runs fn(thread, threads) once on every thread of a parallel region (each takes its own
// share of a layer); the exception of the lowest-numbered thread that threw is rethrown
// on the caller's thread.
template <typename Fn>
void parallel_threads(Fn&& fn) {
  FirstFailure failure;
#pragma omp parallel
  {
    const std::int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    auto body = [&](std::int64_t) { fn(t, n); };
    run_item(t, body, failure);
  }
  failure.rethrow_if_failed();
}

}  // namespace geoalign::cpu
