#pragma once

#include "backend/cpu/isa.h"

// geoalign's own kernels are written once as always-inline templates and instantiated
// per instruction set with these attributes; pick_kernel chooses at run time.
#define GEOALIGN_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#if defined(__clang__)
// clang rejects the whole attribute over prefer-vector-width (the fuzz builds use clang).
#define GEOALIGN_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#else
#define GEOALIGN_TARGET_AVX512 __attribute__((target("arch=x86-64-v4,prefer-vector-width=512")))
#endif

namespace geoalign::cpu {

template <typename Kernel>
Kernel pick_kernel(Kernel baseline, Kernel avx2, Kernel avx512) {
  if (isa_at_least(Isa::Avx512Bf16)) return avx512;
  return isa_at_least(Isa::Avx2) ? avx2 : baseline;
}

}  // namespace geoalign::cpu
