#include "backend/cpu/isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace geoalign::cpu {

namespace {

Isa detected() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Isa::Baseline;
  const bool avx512_bf16 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bf16");
  return avx512_bf16 ? Isa::Avx512Bf16 : Isa::Avx2;
}

Isa lower(Isa a, Isa b) { return static_cast<int>(a) < static_cast<int>(b) ? a : b; }

Isa from_environment(Isa best) {
  const char* env = std::getenv("GEOALIGN_MAX_ISA");
  if (env == nullptr) return best;
  for (Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512Bf16}) {
    if (std::strcmp(env, isa_name(isa)) == 0) return lower(isa, best);
  }
  return best;
}

std::atomic<Isa>& current() {
  static std::atomic<Isa> isa{from_environment(detected())};
  return isa;
}

}  // namespace

Isa active_isa() { return current().load(std::memory_order_relaxed); }

bool isa_at_least(Isa level) { return static_cast<int>(active_isa()) >= static_cast<int>(level); }

void limit_isa(Isa max) { current().store(lower(max, detected())); }

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512Bf16: return "avx512_bf16";
    case Isa::Avx2: return "avx2";
    case Isa::Baseline: break;
  }
  return "baseline";
}

}  // namespace geoalign::cpu
