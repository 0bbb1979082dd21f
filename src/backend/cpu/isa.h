#pragma once

namespace geoalign::cpu {

// The instruction sets geoalign's own kernels are compiled for. Each kernel has a
// baseline x86-64 build and an AVX2+FMA build; the best one the CPU supports runs,
// unless limited (tests use the limit to check every path against the reference).
enum class Isa { Baseline = 0, Avx2 = 1 };

Isa active_isa();
// Never raises the level above what the CPU supports. Also read once from the
// environment variable GEOALIGN_MAX_ISA (baseline or avx2).
void limit_isa(Isa max);
const char* isa_name(Isa isa);

}  // namespace geoalign::cpu
