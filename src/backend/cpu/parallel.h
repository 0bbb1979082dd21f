#pragma once

#include <cstdint>
#include <omp.h>

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

// Splits [0, n) over the persistent OpenMP pool that oneDNN also runs on, so our
// kernels and GEMMs never oversubscribe the cores. Each thread takes one contiguous
// share: for items that cost the same (rows of a matrix). Called inside a parallel
// region (a thread's share of a layer), it runs on the calling thread alone, as a plain
// loop: a nested region, even of one thread, costs libgomp a team allocated and freed,
// and a run of the blocked layers makes tens of thousands of such calls.
template <typename Fn>
void parallel_for(std::int64_t n, Fn&& fn) {
  if (in_parallel_region()) {
    for (std::int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) fn(i);
}

// For items whose costs differ (addresses to parse, sequences of a batch sorted by
// length, where equal shares left one thread all the long ones): threads take `grain`
// items at a time as they finish.
template <typename Fn>
void parallel_for_dynamic(std::int64_t n, [[maybe_unused]] std::int64_t grain, Fn&& fn) {
  if (in_parallel_region()) {
    for (std::int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
#pragma omp parallel for schedule(dynamic, grain)
  for (std::int64_t i = 0; i < n; ++i) fn(i);
}

}  // namespace geoalign::cpu
