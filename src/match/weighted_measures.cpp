#include "match/weighted_measures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace geoalign::match {

namespace {

// Gram keys of s, sorted, repeats kept (a count is a run).
std::vector<std::uint64_t> sorted_grams(std::u32string_view s, std::size_t n) {
  std::vector<std::uint64_t> keys;
  if (s.size() < n) return keys;
  keys.reserve(s.size() + 1 - n);
  for (std::size_t i = 0; i + n <= s.size(); ++i) {
    keys.push_back(n == 1 ? TermWeights::key(s[i]) : TermWeights::key(s[i], s[i + 1]));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Walks both sorted lists run by run: f(idf, count in x, count in y) once per distinct gram.
template <typename F>
void for_each_gram(const std::vector<std::uint64_t>& x, const std::vector<std::uint64_t>& y, const TermWeights& weights,
                   F&& f) {
  std::size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    const std::uint64_t k = j == y.size() || (i < x.size() && x[i] < y[j]) ? x[i] : y[j];
    std::size_t cx = 0, cy = 0;
    while (i < x.size() && x[i] == k) ++i, ++cx;
    while (j < y.size() && y[j] == k) ++j, ++cy;
    f(weights.lookup(k), static_cast<float>(cx), static_cast<float>(cy));
  }
}

float cosine(const std::vector<std::uint64_t>& x, const std::vector<std::uint64_t>& y, const TermWeights& weights) {
  if (x.empty() || y.empty()) return -1.0f;
  double dot = 0, xx = 0, yy = 0;
  for_each_gram(x, y, weights, [&](float idf, float cx, float cy) {
    const double w = static_cast<double>(idf) * idf;
    dot += w * cx * cy;
    xx += w * cx * cx;
    yy += w * cy * cy;
  });
  return xx > 0 && yy > 0 ? static_cast<float>(dot / std::sqrt(xx * yy)) : 0.0f;
}

// x's idf mass found in y (every occurrence counts) as a share, and the mass missing.
void add_share(const std::vector<std::uint64_t>& x, const std::vector<std::uint64_t>& y, const TermWeights& weights,
               std::vector<float>& out) {
  if (x.empty()) {
    out.insert(out.end(), {-1.0f, -1.0f});
    return;
  }
  double total = 0, found = 0;
  for_each_gram(x, y, weights, [&](float idf, float cx, float cy) {
    total += static_cast<double>(idf) * cx;
    if (cy > 0) found += static_cast<double>(idf) * cx;
  });
  out.push_back(total > 0 ? static_cast<float>(found / total) : 0.0f);
  out.push_back(static_cast<float>(total - found));
}

double idf_mass(std::u32string_view s, const TermWeights& weights) {
  double total = 0;
  for (const char32_t c : s) total += weights.idf(c);
  return total;
}

// The common subsequence of greatest idf mass.
double weighted_lcs(std::u32string_view a, std::u32string_view b, const TermWeights& weights) {
  std::vector<double> row(b.size() + 1, 0.0);
  for (const char32_t ca : a) {
    const double w = weights.idf(ca);
    double diagonal = 0;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const double above = row[j];
      row[j] = ca == b[j - 1] ? diagonal + w : std::max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void add_weighted_cosines(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                          std::vector<float>& out) {
  for (const std::size_t n : {1, 2}) out.push_back(cosine(sorted_grams(a, n), sorted_grams(b, n), weights));
}

void add_weighted_coverage(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                           std::vector<float>& out) {
  for (const std::size_t n : {1, 2}) {
    const auto ga = sorted_grams(a, n), gb = sorted_grams(b, n);
    add_share(ga, gb, weights, out);
    add_share(gb, ga, weights, out);
  }
  const double lcs = weighted_lcs(a, b, weights);
  for (const auto s : {a, b}) {
    const double mass = idf_mass(s, weights);
    out.push_back(mass > 0 ? static_cast<float>(lcs / mass) : -1.0f);
  }
}

}  // namespace geoalign::match
