#include "backend/cpu/bf16.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>

#include "backend/cpu/isa.h"
#include "backend/cpu/parallel.h"

namespace geoalign::cpu {

std::uint16_t to_bf16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

namespace {

void convert_portable(const float* src, std::uint16_t* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] = to_bf16(src[i]);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void convert_avx512_bf16(const float* src,
                                                                                         std::uint16_t* dst,
                                                                                         std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512bh packed = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
    _mm512_storeu_si512(dst + i, reinterpret_cast<const __m512i&>(packed));
  }
  convert_portable(src + i, dst + i, n - i);
}

}  // namespace

void to_bf16(const float* src, std::uint16_t* dst, std::int64_t n) {
  const auto convert = isa_at_least(Isa::Avx512Bf16) ? convert_avx512_bf16 : convert_portable;
  // Chunks of 16K values: big enough to amortize the fork, small enough to split a
  // typical activation matrix over every core.
  constexpr std::int64_t kChunk = 16384;
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  if (chunks <= 1) {
    convert(src, dst, n);
    return;
  }
  parallel_for(chunks, [&](std::int64_t c) {
    const std::int64_t first = c * kChunk;
    convert(src + first, dst + first, std::min(kChunk, n - first));
  });
}

}  // namespace geoalign::cpu
