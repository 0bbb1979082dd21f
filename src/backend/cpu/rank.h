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

// The distinct keys of keys[0, n) in increasing order, and how often each occurs (counts
// may be null), as sorting and merging equal neighbours would give them. n <= kMaxRanked.
// Returns how many are distinct.
std::size_t sorted_distinct(const std::uint64_t* keys, std::size_t n, std::uint64_t* distinct,
                            std::uint8_t* counts);

}  // namespace geoalign::cpu
