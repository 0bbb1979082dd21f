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

namespace {
// One record's grams as (gram, weight over the record's norm), given each gram's document
// frequency: TF-IDF, normalized so that a dot product is a cosine.
template <typename DfOf>
std::vector<std::pair<std::uint64_t, float>> weighted(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& counts,
                                                      std::size_t records, DfOf&& df_of) {
  std::vector<std::pair<std::uint64_t, float>> row;
  row.reserve(counts.size());
  double norm = 0;
  for (const auto& [key, count] : counts) {
    const float w = tf_weight(count) * idf(records, df_of(key));
    row.emplace_back(key, w);
    norm += static_cast<double>(w) * w;
  }
  const auto inv = static_cast<float>(norm > 0 ? 1 / std::sqrt(norm) : 0);
  for (auto& entry : row) entry.second *= inv;
  return row;
}

using Docs = std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>>;

Docs gram_counts_of(const StringColumn& texts, std::size_t first) {
  Docs docs(texts.size() - first);
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(docs.size()), 256, [&](std::int64_t i) {
    docs[static_cast<std::size_t>(i)] = gram_counts(texts[first + static_cast<std::size_t>(i)]);
  });
  return docs;
}

// The distinct grams of all docs, sorted, and where each one's run of holders starts in the
// sorted list of (doc, gram) occurrences (one offset more, the end): a run's length is the
// gram's document frequency, and the runs are where an index puts each gram's postings.
struct GramRuns {
  std::vector<std::uint64_t> grams;
  std::vector<std::uint64_t> offsets;
};

GramRuns gram_runs(const Docs& docs) {
  std::vector<std::uint64_t> all;
  for (const auto& d : docs) {
    for (const auto& [key, count] : d) all.push_back(key);
  }
  std::sort(all.begin(), all.end());
  GramRuns runs;
  runs.offsets.push_back(0);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i + 1 == all.size() || all[i + 1] != all[i]) {
      runs.grams.push_back(all[i]);
      runs.offsets.push_back(i + 1);
    }
  }
  return runs;
}
}  // namespace

std::size_t CorpusGrams::df_of(std::uint64_t gram) const {
  const auto it = std::lower_bound(grams.begin(), grams.end(), gram);
  return it != grams.end() && *it == gram ? df[static_cast<std::size_t>(it - grams.begin())] : 0;
}

GramFrequencies gram_frequencies(const StringColumn& texts) {
  GramRuns runs = gram_runs(gram_counts_of(texts, 0));
  GramFrequencies f;
  f.df.reserve(runs.grams.size());
  for (std::size_t g = 0; g < runs.grams.size(); ++g) {
    f.df.push_back(static_cast<std::uint32_t>(runs.offsets[g + 1] - runs.offsets[g]));
  }
  f.grams = std::move(runs.grams);
  return f;
}

LexicalIndex LexicalIndex::build(const StringColumn& texts, const CorpusGrams& corpus) {
  return build(texts, &corpus);
}

LexicalIndex LexicalIndex::build(const StringColumn& texts) { return build(texts, nullptr); }

LexicalIndex LexicalIndex::build(const StringColumn& texts, const CorpusGrams* corpus) {
  LexicalIndex ix;
  ix.corpus_ = corpus;
  ix.records_ = ix.built_records_ = texts.size();
  Docs docs = gram_counts_of(texts, 0);
  // Gram vocabulary; a gram's postings are as many as its document frequency.
  GramRuns runs = gram_runs(docs);
  ix.grams_ = std::move(runs.grams);
  ix.offsets_ = std::move(runs.offsets);
  auto gram_index = [&](std::uint64_t key) {
    return static_cast<std::size_t>(std::lower_bound(ix.grams_.begin(), ix.grams_.end(), key) - ix.grams_.begin());
  };
  ix.postings_.resize(ix.offsets_.back());
  ix.weights_.resize(ix.offsets_.back());
  std::vector<std::uint64_t> fill(ix.offsets_.begin(), ix.offsets_.end() - 1);
  for (std::size_t d = 0; d < docs.size(); ++d) {
    const auto row = weighted(docs[d], ix.corpus_records(), [&](std::uint64_t key) {
      const std::size_t g = gram_index(key);
      return corpus ? corpus->df_of(key) : ix.offsets_[g + 1] - ix.offsets_[g];
    });
    for (const auto& [key, w] : row) {
      const std::size_t g = gram_index(key);
      ix.postings_[fill[g]] = static_cast<std::uint32_t>(d);
      ix.weights_[fill[g]++] = w;
    }
    std::vector<std::pair<std::uint64_t, std::uint32_t>>().swap(docs[d]);
  }
  return ix;
}

void LexicalIndex::add(const StringColumn& texts) {
  if (corpus_) throw Error("lexical index: a shard's index takes no records after its build");
  if (texts.size() < records_) throw Error("lexical index: given fewer texts than it holds records");
  if (texts.size() == records_) return;
  if (4 * (texts.size() - built_records_) > built_records_) {
    *this = build(texts);
    return;
  }
  const auto docs = gram_counts_of(texts, records_);
  // The new records count in each other's document frequencies, as in a build.
  std::unordered_map<std::uint64_t, std::size_t> new_df;
  for (const auto& d : docs) {
    for (const auto& [key, count] : d) ++new_df[key];
  }
  const std::size_t first = records_;
  records_ = texts.size();
  std::vector<std::vector<std::pair<std::uint64_t, float>>> rows;
  rows.reserve(docs.size());
  for (const auto& d : docs) {
    rows.push_back(weighted(d, records_, [&](std::uint64_t key) { return postings_of(key).df() + new_df[key]; }));
  }
  for (std::size_t d = 0; d < rows.size(); ++d) {
    for (const auto& [key, w] : rows[d]) tail_[key].push_back({static_cast<std::uint32_t>(first + d), w});
  }
}

LexicalIndex::GramPostings LexicalIndex::postings_of(std::uint64_t gram) const {
  GramPostings p;
  const auto it = std::lower_bound(grams_.begin(), grams_.end(), gram);
  if (it != grams_.end() && *it == gram) {
    const auto g = static_cast<std::size_t>(it - grams_.begin());
    p.records = std::span(postings_).subspan(offsets_[g], offsets_[g + 1] - offsets_[g]);
    p.weights = std::span(weights_).subspan(offsets_[g], offsets_[g + 1] - offsets_[g]);
  }
  if (const auto t = tail_.find(gram); t != tail_.end()) p.tail = &t->second;
  return p;
}

std::vector<Hit> LexicalIndex::search(std::string_view text, std::size_t k, const RecordFilter& filter,
                                      std::size_t max_postings) const {
  struct Term {
    GramPostings postings;
    float weight;
    std::size_t df;
  };
  std::vector<Term> terms;
  for (const auto& [key, count] : gram_counts(text)) {
    const GramPostings p = postings_of(key);
    // A shard weighs and selects grams by the whole corpus's counts, so a gram that only
    // other shards hold still takes its place in the budget.
    const std::size_t df = corpus_df(key, p);
    if (df == 0) continue;
    terms.push_back({p, tf_weight(count) * idf(corpus_records(), df), df});
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
  const auto accumulate = [&](std::uint32_t r, float contribution) {
    if (scores[r] == 0.0f) touched.push_back(r);
    scores[r] += contribution;
  };
  for (const Term& t : terms) {
    for (std::size_t p = 0; p < t.postings.records.size(); ++p) accumulate(t.postings.records[p], t.weight * t.postings.weights[p]);
    if (t.postings.tail) {
      for (const Posting& p : *t.postings.tail) accumulate(p.record, t.weight * p.weight);
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
  if (corpus_) throw Error("lexical index: a shard's index is weighed by its corpus and is not written");
  // The built grams and the tail's, in one sorted list; each gram's postings are the
  // built ones, then the tail's (later records).
  std::vector<std::uint64_t> grams;
  grams.reserve(grams_.size() + tail_.size());
  for (const auto& [key, postings] : tail_) {
    if (!std::binary_search(grams_.begin(), grams_.end(), key)) grams.push_back(key);
  }
  std::sort(grams.begin(), grams.end());
  const std::size_t tail_only = grams.size();
  grams.insert(grams.end(), grams_.begin(), grams_.end());
  std::inplace_merge(grams.begin(), grams.begin() + static_cast<std::ptrdiff_t>(tail_only), grams.end());
  std::vector<GramPostings> postings;
  postings.reserve(grams.size());
  for (const std::uint64_t g : grams) postings.push_back(postings_of(g));

  BinaryWriter out(file, kMagic, kVersion);
  out.u64(records_);
  out.array<std::uint64_t>(grams);
  std::vector<std::uint64_t> offsets{0};
  offsets.reserve(grams.size() + 1);
  for (const GramPostings& p : postings) offsets.push_back(offsets.back() + p.df());
  out.array<std::uint64_t>(offsets);
  out.array_length(offsets.back());
  for (const GramPostings& p : postings) {
    out.values(p.records);
    if (p.tail) {
      for (const Posting& t : *p.tail) out.values(std::span(&t.record, 1));
    }
  }
  out.array_length(offsets.back());
  for (const GramPostings& p : postings) {
    out.values(p.weights);
    if (p.tail) {
      for (const Posting& t : *p.tail) out.values(std::span(&t.weight, 1));
    }
  }
  out.close();
}

LexicalIndex LexicalIndex::read(const std::filesystem::path& file, std::size_t records) {
  BinaryReader in(file, kMagic, kVersion);
  LexicalIndex ix;
  ix.records_ = in.u64("record count");
  ix.built_records_ = ix.records_;
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
