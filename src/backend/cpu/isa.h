#pragma once

namespace geoalign::cpu {

// The instruction sets geoalign's own kernels are compiled for, in increasing order.
// Each kernel has a baseline x86-64 build and faster builds for the levels that help it;
// the best one the CPU supports runs, unless limited (tests use the limit to check every
// path against the reference). Avx512Bf16 means x86-64-v4 (AVX-512 F/BW/VL/DQ/CD) plus
// the BF16 conversion and dot-product instructions.
enum class Isa { Baseline = 0, Avx2 = 1, Avx512Bf16 = 2 };

Isa active_isa();
bool isa_at_least(Isa level);
// Never raises the level above what the CPU supports. Also read once from the
// environment variable GEOALIGN_MAX_ISA (baseline, avx2 or avx512_bf16).
void limit_isa(Isa max);
const char* isa_name(Isa isa);

}  // namespace geoalign::cpu
