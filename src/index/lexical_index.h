#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "index/binary_file.h"
#include "index/string_column.h"

namespace geoalign::index {

struct Hit {
  std::uint32_t record;
  float score;
};

// Which records a search may return (a region filter); empty: all.
using RecordFilter = std::function<bool(std::uint32_t record)>;

// An inverted index over characters and character bigrams of the normalized texts,
// weighted by TF-IDF and ranked by cosine similarity. It keeps what embeddings blur: a
// rare bigram (a compound's name, 碧涛) or a road number weighs far more than 市 or 路.
//
// Records added after a build go to a tail beside the built postings, weighted by the
// idf of the moment they are added, so an add costs what it adds; once the tail holds a
// quarter as many records as the built part, everything is built again, which keeps the
// weights near a fresh build's and costs each record O(1) rebuilds on average. Queries
// read the idf of the whole index at query time.
// How many records of a whole corpus hold each gram. A lexical index of one shard of the
// corpus built with them weighs and selects grams as an index of the whole corpus would, so
// its scores are the whole index's and the shards' top k merge into the whole one's.
// A view: the counts stay where the caller keeps them (a task's arrays, not a copy each).
struct CorpusGrams {
  std::size_t records = 0;
  std::span<const std::uint64_t> grams;  // sorted
  std::span<const std::uint32_t> df;     // per gram
  std::size_t df_of(std::uint64_t gram) const;
};

class LexicalIndex {
 public:
  static constexpr const char* kFileName = "lexical.bin";

  static LexicalIndex build(const StringColumn& texts);
  // An index of one shard of a corpus, with the corpus's statistics (kept by pointer: the
  // caller keeps `corpus` alive as long as the index). Cannot be added to or written.
  static LexicalIndex build(const StringColumn& texts, const CorpusGrams& corpus);
  // Indexes texts[records() ..]: `texts` holds every record, those indexed already first.
  void add(const StringColumn& texts);
  // One file, the tail folded in with the weights it has.
  void write(const std::filesystem::path& file) const;
  static LexicalIndex read(const std::filesystem::path& file, std::size_t records);

  // The k most similar records, best first. Grams are taken from the rarest up while the
  // postings they bring stay within `max_postings` (the first gram always), so a query
  // costs at most that many postings however large the index: common grams (市, 路) reach
  // most records and barely change the ranking; the rare ones (a compound's name) decide it.
  std::vector<Hit> search(std::string_view text, std::size_t k, const RecordFilter& filter = {},
                          std::size_t max_postings = kDefaultMaxPostings) const;
  static constexpr std::size_t kDefaultMaxPostings = 200000;

  std::size_t records() const { return records_; }
  // Records added since the last build, kept beside its postings.
  std::size_t tail_records() const { return records_ - built_records_; }

 private:
  struct Posting {
    std::uint32_t record;
    float weight;
  };
  // A gram's postings in the built part and in the tail.
  struct GramPostings {
    std::span<const std::uint32_t> records;
    std::span<const float> weights;
    const std::vector<Posting>* tail = nullptr;
    std::size_t df() const { return records.size() + (tail ? tail->size() : 0); }
  };
  GramPostings postings_of(std::uint64_t gram) const;
  static LexicalIndex build(const StringColumn& texts, const CorpusGrams* corpus);

  std::size_t corpus_df(std::uint64_t gram, const GramPostings& postings) const {
    return corpus_ ? corpus_->df_of(gram) : postings.df();
  }
  std::size_t corpus_records() const { return corpus_ ? corpus_->records : records_; }

  const CorpusGrams* corpus_ = nullptr;  // the whole corpus's statistics, for a shard's index
  std::size_t records_ = 0;             // built and tail
  std::size_t built_records_ = 0;       // in grams_/offsets_/postings_
  std::vector<std::uint64_t> grams_;    // sorted gram keys
  std::vector<std::uint64_t> offsets_;  // postings of grams_[i]: [offsets_[i], offsets_[i + 1])
  std::vector<std::uint32_t> postings_;
  std::vector<float> weights_;  // the gram's TF-IDF weight in that record, over the record's norm
  std::unordered_map<std::uint64_t, std::vector<Posting>> tail_;  // records added since the build
};

// How many texts hold each gram, grams sorted: what CorpusGrams views.
struct GramFrequencies {
  std::vector<std::uint64_t> grams;
  std::vector<std::uint32_t> df;
};
GramFrequencies gram_frequencies(const StringColumn& texts);

// The grams of a text with their counts, sorted by key (characters and bigrams of the
// folded text, as the match head's idf weights count them).
std::vector<std::pair<std::uint64_t, std::uint32_t>> gram_counts(std::string_view text);

}  // namespace geoalign::index
