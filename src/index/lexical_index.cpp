#include "index/lexical_index.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "backend/cpu/parallel.h"
#include "match/string_measures.h"
#include "match/term_weights.h"

namespace geoalign::index {

namespace {
constexpr const char* kMagic = "GAXLEX";
constexpr std::uint32_t kVersion = 1;

float idf(std::size_t records, std::size_t df) {
  return static_cast<float>(std::log((static_cast<double>(records) + 1) / (static_cast<double>(df) + 1)) + 1);
}
float tf_weight(std::uint32_t count) { return 1.0f + std::log(static_cast<float>(count)); }
}  // namespace

std::vector<std::pair<std::uint64_t, std::uint32_t>> gram_counts(std::string_view text) {
  const std::u32string s = match::folded(text);
  std::vector<std::uint64_t> keys;
  keys.reserve(2 * s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    keys.push_back(match::TermWeights::key(s[i]));
    if (i + 1 < s.size()) keys.push_back(match::TermWeights::key(s[i], s[i + 1]));
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<std::uint64_t, std::uint32_t>> counts;
  for (std::uint64_t k : keys) {
    if (!counts.empty() && counts.back().first == k) {
      ++counts.back().second;
    } else {
      counts.emplace_back(k, 1);
    }
  }
  return counts;
}

LexicalIndex LexicalIndex::build(const StringColumn& texts) {
  LexicalIndex ix;
  ix.records_ = texts.size();
  std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> docs(texts.size());
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(texts.size()), 256,
                            [&](std::int64_t i) { docs[static_cast<std::size_t>(i)] = gram_counts(texts[static_cast<std::size_t>(i)]); });
  // Gram vocabulary and document frequencies.
  std::vector<std::uint64_t> all;
  for (const auto& d : docs) {
    for (const auto& [key, count] : d) all.push_back(key);
  }
  std::sort(all.begin(), all.end());
  std::vector<std::uint64_t> df_offsets{0};
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i + 1 == all.size() || all[i + 1] != all[i]) {
      ix.grams_.push_back(all[i]);
      df_offsets.push_back(i + 1);
    }
  }
  ix.offsets_ = std::move(df_offsets);
  std::vector<std::uint64_t>().swap(all);
  auto gram_index = [&](std::uint64_t key) {
    return static_cast<std::size_t>(std::lower_bound(ix.grams_.begin(), ix.grams_.end(), key) - ix.grams_.begin());
  };
  ix.postings_.resize(ix.offsets_.back());
  ix.weights_.resize(ix.offsets_.back());
  std::vector<std::uint64_t> fill(ix.offsets_.begin(), ix.offsets_.end() - 1);
  for (std::size_t d = 0; d < docs.size(); ++d) {
    double norm = 0;
    std::vector<std::pair<std::size_t, float>> row;
    for (const auto& [key, count] : docs[d]) {
      const std::size_t g = gram_index(key);
      const float w = tf_weight(count) * idf(ix.records_, ix.offsets_[g + 1] - ix.offsets_[g]);
      row.emplace_back(g, w);
      norm += static_cast<double>(w) * w;
    }
    const auto inv = static_cast<float>(norm > 0 ? 1 / std::sqrt(norm) : 0);
    for (const auto& [g, w] : row) {
      ix.postings_[fill[g]] = static_cast<std::uint32_t>(d);
      ix.weights_[fill[g]++] = w * inv;
    }
    std::vector<std::pair<std::uint64_t, std::uint32_t>>().swap(docs[d]);
  }
  return ix;
}

std::vector<Hit> LexicalIndex::search(std::string_view text, std::size_t k, const RecordFilter& filter,
                                      std::size_t max_postings) const {
  struct Term {
    std::size_t gram;
    float weight;
    std::size_t df;
  };
  std::vector<Term> terms;
  for (const auto& [key, count] : gram_counts(text)) {
    const auto it = std::lower_bound(grams_.begin(), grams_.end(), key);
    if (it == grams_.end() || *it != key) continue;
    const auto g = static_cast<std::size_t>(it - grams_.begin());
    const std::size_t df = offsets_[g + 1] - offsets_[g];
    terms.push_back({g, tf_weight(count) * idf(records_, df), df});
  }
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.df < b.df; });
  std::size_t kept = 0, postings = 0;
  while (kept < terms.size() && (kept == 0 || postings + terms[kept].df <= max_postings)) postings += terms[kept++].df;
  terms.resize(kept);
  // A dense accumulator per thread: a million records cost 4 MB once, and each search
  // touches only the records its grams reach.
  thread_local std::vector<float> scores;
  thread_local std::vector<std::uint32_t> touched;
  if (scores.size() < records_) scores.assign(records_, 0.0f);
  touched.clear();
  for (const Term& t : terms) {
    for (std::uint64_t p = offsets_[t.gram]; p < offsets_[t.gram + 1]; ++p) {
      const std::uint32_t r = postings_[p];
      if (scores[r] == 0.0f) touched.push_back(r);
      scores[r] += t.weight * weights_[p];
    }
  }
  double qnorm = 0;
  for (const Term& t : terms) qnorm += static_cast<double>(t.weight) * t.weight;
  const auto inv = static_cast<float>(qnorm > 0 ? 1 / std::sqrt(qnorm) : 0);
  std::vector<Hit> hits;
  hits.reserve(touched.size());
  for (std::uint32_t r : touched) {
    if (!filter || filter(r)) hits.push_back({r, scores[r] * inv});
    scores[r] = 0.0f;
  }
  const auto better = [](const Hit& a, const Hit& b) { return a.score != b.score ? a.score > b.score : a.record < b.record; };
  if (hits.size() > k) {
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(), better);
    hits.resize(k);
  } else {
    std::sort(hits.begin(), hits.end(), better);
  }
  return hits;
}

void LexicalIndex::write(const std::filesystem::path& file) const {
  BinaryWriter out(file, kMagic, kVersion);
  out.u64(records_);
  out.array<std::uint64_t>(grams_);
  out.array<std::uint64_t>(offsets_);
  out.array<std::uint32_t>(postings_);
  out.array<float>(weights_);
  out.close();
}

LexicalIndex LexicalIndex::read(const std::filesystem::path& file, std::size_t records) {
  BinaryReader in(file, kMagic, kVersion);
  LexicalIndex ix;
  ix.records_ = in.u64("record count");
  ix.grams_ = in.array<std::uint64_t>("grams");
  ix.offsets_ = in.array<std::uint64_t>("posting offsets");
  ix.postings_ = in.array<std::uint32_t>("postings");
  ix.weights_ = in.array<float>("weights");
  in.expect_end();
  if (ix.records_ != records) {
    in.corrupt("indexes " + std::to_string(ix.records_) + " records, the index has " + std::to_string(records));
  }
  if (ix.offsets_.size() != ix.grams_.size() + 1 || ix.offsets_.front() != 0 || ix.offsets_.back() != ix.postings_.size() ||
      ix.weights_.size() != ix.postings_.size() || !std::is_sorted(ix.offsets_.begin(), ix.offsets_.end()) ||
      !std::is_sorted(ix.grams_.begin(), ix.grams_.end())) {
    in.corrupt("inconsistent postings");
  }
  if (std::any_of(ix.postings_.begin(), ix.postings_.end(), [&](std::uint32_t r) { return r >= records; })) {
    in.corrupt("a posting names a record past the end");
  }
  return ix;
}

}  // namespace geoalign::index
