#include "backend/cpu/isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace geoalign::cpu {

namespace {

Isa detected() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? Isa::Avx2 : Isa::Baseline;
}

Isa from_environment(Isa best) {
  const char* env = std::getenv("GEOALIGN_MAX_ISA");
  if (env != nullptr && std::strcmp(env, "baseline") == 0) return Isa::Baseline;
  return best;
}

std::atomic<Isa>& current() {
  static std::atomic<Isa> isa{from_environment(detected())};
  return isa;
}

}  // namespace

Isa active_isa() { return current().load(std::memory_order_relaxed); }

void limit_isa(Isa max) {
  const Isa best = detected();
  current().store(static_cast<int>(max) < static_cast<int>(best) ? max : best);
}

const char* isa_name(Isa isa) { return isa == Isa::Avx2 ? "avx2" : "baseline"; }

}  // namespace geoalign::cpu
