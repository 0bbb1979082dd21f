#pragma once

#include <cstdint>
#include <functional>
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
class LexicalIndex {
 public:
  static constexpr const char* kFileName = "lexical.bin";

  static LexicalIndex build(const StringColumn& texts);
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

 private:
  std::size_t records_ = 0;
  std::vector<std::uint64_t> grams_;    // sorted gram keys
  std::vector<std::uint64_t> offsets_;  // postings of grams_[i]: [offsets_[i], offsets_[i + 1])
  std::vector<std::uint32_t> postings_;
  std::vector<float> weights_;  // the gram's TF-IDF weight in that record, over the record's norm
};

// The grams of a text with their counts, sorted by key (characters and bigrams of the
// folded text, as the match head's idf weights count them).
std::vector<std::pair<std::uint64_t, std::uint32_t>> gram_counts(std::string_view text);

}  // namespace geoalign::index
