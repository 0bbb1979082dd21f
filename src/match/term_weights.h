#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "geo/flat_u64_map.h"

namespace geoalign::match {

// How much a character or a character bigram says about which place an address names:
// its inverse document frequency over the addresses the match head was trained on. 梓 or
// 碧涛 single out a compound where 市, 路 or 小区 appear everywhere, so measures weighted
// by it tell "same compound" from "same boilerplate".
//
// File (term_weights.tsv): a first line "documents<TAB>N", then one "gram<TAB>count" per
// line, the gram one or two code points in the folded form of match/string_measures.h.
// idf = ln((N + 1) / (count + 1)); a gram the file does not list counts 0.
class TermWeights {
 public:
  static constexpr const char* kFileName = "term_weights.tsv";

  // Throws Error naming the file and line for anything malformed.
  static TermWeights load(const std::filesystem::path& file);
  // Parses the file's text; source_name is what errors call it.
  static TermWeights parse(std::string_view text, const std::string& source_name);

  float idf(char32_t c) const { return lookup(key(c)); }
  float idf(char32_t first, char32_t second) const { return lookup(key(first, second)); }

  static std::uint64_t key(char32_t c) { return (static_cast<std::uint64_t>(c) << 32) | kNoSecond; }
  static std::uint64_t key(char32_t first, char32_t second) { return (static_cast<std::uint64_t>(first) << 32) | second; }
  float lookup(std::uint64_t gram_key) const {
    const float* v = idf_.find(gram_key);
    return v ? *v : unseen_;
  }

 private:
  // Not a code point, so a single character's key never equals a bigram's.
  static constexpr std::uint32_t kNoSecond = 0xFFFFFFFFu;
  TermWeights() = default;
  geo::FlatU64Map<float> idf_;
  float unseen_ = 0;
};

// Builds a term weights file: each address is one document, folded as the pair features
// fold it, and a gram counts once per document.
class TermCounter {
 public:
  // Throws Error on invalid UTF-8.
  void add_document(std::string_view utf8);
  // Bigrams seen in fewer than min_bigram_count documents are left out (they then weigh
  // as unseen), which keeps the file small; every character is kept.
  void write(std::ostream& out, std::uint64_t min_bigram_count) const;
  std::uint64_t documents() const { return documents_; }

 private:
  std::uint64_t documents_ = 0;
  std::map<std::u32string, std::uint64_t> counts_;
};

}  // namespace geoalign::match
