#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "match/term_weights.h"

namespace geoalign::match {

// Comparisons of two folded strings in which each character or bigram counts by its
// idf (match/term_weights.h). Where a string has no gram of a size (too short), the
// cosine is 0 and the shares of its mass are -1; where its grams weigh nothing, a share
// is 0 and the LCS share -1.

// One string's grams of one size with their weights, looked up once: an address compared
// with many others is weighed once, and a pair only walks two sorted lists.
struct WeightedGrams {
  struct Run {
    std::uint64_t key;  // TermWeights::key
    float idf;
    float count;  // occurrences in the string
  };
  std::vector<Run> runs;     // distinct grams, by key
  double squared_norm = 0;   // sum of (idf count)^2, in key order
  double mass = 0;           // sum of idf count, in key order
};
// A folded string as the weighted measures read it: characters, then bigrams, and the
// idf of each character in string order (for the weighted LCS).
struct WeightedText {
  WeightedGrams grams[2];
  std::vector<double> char_idf;
  double char_mass = 0;  // sum of char_idf, in string order
};
WeightedText weighted_text(std::u32string_view s, const TermWeights& weights);
// How many distinct grams the two lists share.
std::size_t shared_grams(const WeightedGrams& a, const WeightedGrams& b);

// Cosine of the idf-weighted character counts, then of the bigram counts.
void add_weighted_cosines(const WeightedText& a, const WeightedText& b, std::vector<float>& out);
// Asymmetric, because a candidate that names only part of the query (or the reverse) is
// what separates partial from exact matches: for characters, then bigrams, the share of
// a's idf mass found in b and the mass missing from b, the same for b in a; then the idf
// mass of the longest common subsequence over a's and over b's. `a` and `b` are the
// strings the weighted texts were made from.
void add_weighted_coverage(std::u32string_view a, const WeightedText& wa, std::u32string_view b,
                           const WeightedText& wb, std::vector<float>& out);

// The same from the strings themselves.
void add_weighted_cosines(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                          std::vector<float>& out);
void add_weighted_coverage(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                           std::vector<float>& out);

}  // namespace geoalign::match
