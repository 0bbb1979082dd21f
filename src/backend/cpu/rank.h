#pragma once

#include <cstddef>
#include <cstdint>

namespace geoalign::cpu {

// Sorting a handful of hashes (a token's feature ids, an address's character grams):
// placing each by its rank needs no data-dependent branch, where a comparison sort of
// random keys mispredicts about every other comparison.
inline constexpr std::size_t kMaxRanked = 64;

// ranks[i] = how many of keys[0, n) are smaller than keys[i]; equal keys share a rank.
// n <= kMaxRanked. Vectorized per ISA; every ISA gives the same ranks.
void rank_keys(const std::uint64_t* keys, std::size_t n, std::uint64_t* ranks);

// Sorts keys[0, n) and merges equal keys, in place: keys[0, d) become the d distinct keys
// in increasing order and counts[0, d) (when not null; room for n) how often each
// occurred. Returns d. Up to kMaxRanked keys are placed by rank; more are sorted.
std::size_t sort_distinct(std::uint64_t* keys, std::size_t n, std::size_t* counts);

}  // namespace geoalign::cpu
