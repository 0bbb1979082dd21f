#include "backend/cpu/rank.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "backend/cpu/kernel_targets.h"

namespace geoalign::cpu {

namespace {

// All keys at once, eight to a vector, one key against them all per step.
typedef std::uint64_t Keys8 __attribute__((vector_size(64)));

__attribute__((always_inline)) inline void rank_vectors(const std::uint64_t* keys, std::size_t n,
                                                        std::uint64_t* ranks) {
  const std::size_t blocks = (n + 7) / 8;
  Keys8 values[kMaxRanked / 8], counts[kMaxRanked / 8];
  for (std::size_t b = 0; b < blocks; ++b) {
    std::uint64_t chunk[8];
    for (std::size_t k = 0; k < 8; ++k) chunk[k] = 8 * b + k < n ? keys[8 * b + k] : 0;
    std::memcpy(&values[b], chunk, sizeof chunk);
    counts[b] = Keys8{};
  }
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t key = keys[j];
    // A vector comparison's true is all ones: subtracting it counts one.
    for (std::size_t b = 0; b < blocks; ++b) counts[b] -= reinterpret_cast<Keys8>(key < values[b]);
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    std::uint64_t chunk[8];
    std::memcpy(chunk, &counts[b], sizeof chunk);
    for (std::size_t k = 0; k < 8 && 8 * b + k < n; ++k) ranks[8 * b + k] = chunk[k];
  }
}

using RankKernel = void (*)(const std::uint64_t*, std::size_t, std::uint64_t*);
void rank_baseline(const std::uint64_t* keys, std::size_t n, std::uint64_t* ranks) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t rank = 0;
    for (std::size_t j = 0; j < n; ++j) rank += keys[j] < keys[i];
    ranks[i] = rank;
  }
}
GEOALIGN_TARGET_AVX2 void rank_avx2(const std::uint64_t* keys, std::size_t n, std::uint64_t* ranks) {
  rank_vectors(keys, n, ranks);
}
GEOALIGN_TARGET_AVX512 void rank_avx512(const std::uint64_t* keys, std::size_t n, std::uint64_t* ranks) {
  rank_vectors(keys, n, ranks);
}

}  // namespace

void rank_keys(const std::uint64_t* keys, std::size_t n, std::uint64_t* ranks) {
  pick_kernel<RankKernel>(rank_baseline, rank_avx2, rank_avx512)(keys, n, ranks);
}

std::size_t sort_distinct(std::uint64_t* keys, std::size_t n, std::size_t* counts) {
  if (n > kMaxRanked) {
    std::sort(keys, keys + n);
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++out) {
      std::size_t j = i;
      while (j < n && keys[j] == keys[i]) ++j;
      keys[out] = keys[i];
      if (counts) counts[out] = j - i;
      i = j;
    }
    return out;
  }
  std::uint64_t ranks[kMaxRanked], by_rank[kMaxRanked];
  std::uint8_t count[kMaxRanked];  // ranks are below n: only n need clearing
  std::fill_n(count, n, std::uint8_t{0});
  rank_keys(keys, n, ranks);
  std::uint64_t ranked = 0;  // bit r: some key has rank r (equal keys share one)
  for (std::size_t i = 0; i < n; ++i) {
    by_rank[ranks[i]] = keys[i];
    ++count[ranks[i]];
    ranked |= std::uint64_t{1} << ranks[i];
  }
  std::size_t out = 0;
  for (; ranked != 0; ranked &= ranked - 1, ++out) {
    const int r = std::countr_zero(ranked);
    keys[out] = by_rank[r];
    if (counts) counts[out] = count[r];
  }
  return out;
}

}  // namespace geoalign::cpu
