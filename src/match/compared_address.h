#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "geoalign/parser.h"
#include "match/element_coverage.h"
#include "match/term_weights.h"
#include "match/weighted_measures.h"

namespace geoalign::match {

// Compared element by element, finest last. The order also ranks granularity. The first
// kPlaceTags (prov .. roomno) name a place at some granularity; person and assist do not.
inline constexpr std::array<const char*, 18> kComparedTags = {
    "prov", "city",   "district", "devzone",   "town", "community", "road",   "subroad", "roadno",
    "subroadno", "poi", "subpoi", "houseno",  "cellno", "floorno",  "roomno", "person",  "assist"};
inline constexpr std::size_t kPlaceTags = 16;

// Everything the pair features read of one address that does not depend on the other
// one: its texts folded, its grams weighed, its elements sorted by tag. A rerank or a
// deduplication compares one address with dozens of others, and works this out once.
struct ComparedAddress {
  const AdminChain* admin = nullptr;  // the parse's own: the parse must outlive this
  std::u32string all;                 // the whole text, folded (match/string_measures.h)
  std::u32string tail;                // without the admin levels: what names the place inside the district
  std::u32string unified;             // `all` with building words unified
  WeightedText all_weighted, tail_weighted;
  // The numbers of the address, distinct and sorted: every digit run of its number
  // elements (88号, 三栋 as 3), and only the Arabic digits of its names (文三路 has none).
  std::vector<std::u32string> numbers;
  float granularity = 0;                // 1 + rank of the finest place element, 0 for none
  long finest_rank = -1;                // the last of the finest place elements: its rank and text
  std::u32string finest_text;
  std::vector<std::u32string> roads, places;  // element texts of the road and of the place group
  std::array<std::u32string, kComparedTags.size()> tag_text, tag_digits;  // per compared tag
  std::vector<InnerElement> inner;      // match/element_coverage.h
};

ComparedAddress compared_address(const ParsedAddress& p, const TermWeights& weights);

}  // namespace geoalign::match
