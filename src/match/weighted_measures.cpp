#include "match/weighted_measures.h"

#include <algorithm>
#include <cmath>

#include "backend/cpu/rank.h"
#include "match/scratch.h"

namespace geoalign::match {

namespace {

WeightedGrams weighted_grams(std::u32string_view s, std::size_t n, const TermWeights& weights) {
  WeightedGrams out;
  if (s.size() < n) return out;
  std::vector<std::uint64_t> keys;
  keys.reserve(s.size() + 1 - n);
  for (std::size_t i = 0; i + n <= s.size(); ++i) {
    keys.push_back(n == 1 ? TermWeights::key(s[i]) : TermWeights::key(s[i], s[i + 1]));
  }
  const std::span<std::size_t> counts = scratch_sizes(keys.size());
  const std::size_t runs = cpu::sort_distinct(keys.data(), keys.size(), counts.data());
  out.runs.reserve(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    out.runs.push_back({keys[r], weights.lookup(keys[r]), static_cast<float>(counts[r])});
  }
  // The same expressions, in the same order, as a walk over both strings' grams would
  // sum them: the features stay bit for bit what the head was trained on.
  for (const auto& r : out.runs) {
    const double w = static_cast<double>(r.idf) * r.idf;
    out.squared_norm += w * r.count * r.count;
    out.mass += static_cast<double>(r.idf) * r.count;
  }
  return out;
}

// Calls f(run in x, run in y) for each gram both lists hold, in key order.
template <typename F>
void for_each_shared_gram(const WeightedGrams& x, const WeightedGrams& y, F&& f) {
  auto i = x.runs.begin(), j = y.runs.begin();
  while (i != x.runs.end() && j != y.runs.end()) {
    if (i->key < j->key) {
      ++i;
    } else if (j->key < i->key) {
      ++j;
    } else {
      f(*i, *j);
      ++i, ++j;
    }
  }
}

float cosine(const WeightedGrams& x, const WeightedGrams& y) {
  if (x.runs.empty() || y.runs.empty()) return -1.0f;
  double dot = 0;
  for_each_shared_gram(x, y, [&](const WeightedGrams::Run& rx, const WeightedGrams::Run& ry) {
    const double w = static_cast<double>(rx.idf) * rx.idf;
    dot += w * rx.count * ry.count;
  });
  const double xx = x.squared_norm, yy = y.squared_norm;
  return xx > 0 && yy > 0 ? static_cast<float>(dot / std::sqrt(xx * yy)) : 0.0f;
}

// x's idf mass found in y (every occurrence counts) as a share, and the mass missing.
void add_share(const WeightedGrams& x, const WeightedGrams& y, std::vector<float>& out) {
  if (x.runs.empty()) {
    out.insert(out.end(), {-1.0f, -1.0f});
    return;
  }
  double found = 0;
  for_each_shared_gram(x, y, [&](const WeightedGrams::Run& rx, const WeightedGrams::Run&) {
    found += static_cast<double>(rx.idf) * rx.count;
  });
  const double total = x.mass;
  out.push_back(total > 0 ? static_cast<float>(found / total) : 0.0f);
  out.push_back(static_cast<float>(total - found));
}

// The common subsequence of greatest idf mass.
double weighted_lcs(std::u32string_view a, std::span<const double> a_idf, std::u32string_view b) {
  std::span<double> row = scratch_doubles(b.size() + 1);
  std::fill(row.begin(), row.end(), 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char32_t ca = a[i];
    const double w = a_idf[i];
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

WeightedText weighted_text(std::u32string_view s, const TermWeights& weights) {
  WeightedText out;
  out.grams[0] = weighted_grams(s, 1, weights);
  out.grams[1] = weighted_grams(s, 2, weights);
  out.char_idf.reserve(s.size());
  for (const char32_t c : s) {
    out.char_idf.push_back(weights.idf(c));
    out.char_mass += out.char_idf.back();
  }
  return out;
}

std::size_t shared_grams(const WeightedGrams& a, const WeightedGrams& b) {
  std::size_t n = 0;
  for_each_shared_gram(a, b, [&](const WeightedGrams::Run&, const WeightedGrams::Run&) { ++n; });
  return n;
}

void add_weighted_cosines(const WeightedText& a, const WeightedText& b, std::vector<float>& out) {
  for (const std::size_t n : {0, 1}) out.push_back(cosine(a.grams[n], b.grams[n]));
}

void add_weighted_coverage(std::u32string_view a, const WeightedText& wa, std::u32string_view b,
                           const WeightedText& wb, std::vector<float>& out) {
  for (const std::size_t n : {0, 1}) {
    add_share(wa.grams[n], wb.grams[n], out);
    add_share(wb.grams[n], wa.grams[n], out);
  }
  const double lcs = weighted_lcs(a, wa.char_idf, b);
  for (const double mass : {wa.char_mass, wb.char_mass}) out.push_back(mass > 0 ? static_cast<float>(lcs / mass) : -1.0f);
}

void add_weighted_cosines(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                          std::vector<float>& out) {
  add_weighted_cosines(weighted_text(a, weights), weighted_text(b, weights), out);
}

void add_weighted_coverage(std::u32string_view a, std::u32string_view b, const TermWeights& weights,
                           std::vector<float>& out) {
  add_weighted_coverage(a, weighted_text(a, weights), b, weighted_text(b, weights), out);
}

}  // namespace geoalign::match
