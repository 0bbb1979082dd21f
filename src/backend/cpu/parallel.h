#pragma once

#include <cstdint>

namespace geoalign::cpu {

// Splits [0, n) over the persistent OpenMP pool that oneDNN also runs on, so our
// kernels and GEMMs never oversubscribe the cores.
template <typename Fn>
void parallel_for(std::int64_t n, Fn&& fn) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) fn(i);
}

}  // namespace geoalign::cpu
