#pragma once

#include <string_view>
#include <vector>

#include "match/term_weights.h"

namespace geoalign::match {

// Comparisons of two folded strings in which each character or bigram counts by its
// idf (match/term_weights.h). Where a string has no gram of a size (too short), the
// cosine is 0 and the shares of its mass are -1; where its grams weigh nothing, a share
// is 0 and the LCS share -1.

// Cosine of the idf-weighted character counts, then of the bigram counts.
void add_weighted_cosines(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                          std::vector<float>& out);

// Asymmetric, because a candidate that names only part of the query (or the reverse) is
// what separates partial from exact matches: for characters, then bigrams, the share of
// a's idf mass found in b and the mass missing from b, the same for b in a; then the idf
// mass of the longest common subsequence over a's and over b's.
void add_weighted_coverage(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                           std::vector<float>& out);

}  // namespace geoalign::match
