#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/parser.h"

namespace geoalign::match {

// Which of one address's elements below the admin levels (development zone down to room)
// the other address also names. The annotation behind exact and partial matches turns on
// this: a candidate that names the query's compound and building is exact, one that
// stops at the compound or names another building in it is partial. Building words are
// unified first (match/string_measures.h).
//
// For a in b, then b in a: the share of elements that equal one of the other's elements,
// the share found anywhere in the other's text, the rank of the finest element found and
// of the finest not found (0 = devzone .. 11 = room), and the mean over elements of the
// best LCS ratio against the other's elements. Then, for b's finest element and a's: its
// rank and whether the other's text contains it. -1 where there is nothing to compare.
// unified_a and unified_b are the whole texts, folded with building words unified.
struct InnerElement {
  long rank;            // 0 = devzone .. 11 = room
  std::u32string text;  // folded, building words unified
};
// p's elements below the admin levels; folded_elements[i] is p.elements[i] folded.
std::vector<InnerElement> inner_elements(const ParsedAddress& p, std::span<const std::u32string> folded_elements);
void add_element_coverage(std::span<const InnerElement> a, std::u32string_view unified_a,
                          std::span<const InnerElement> b, std::u32string_view unified_b, std::vector<float>& out);

}  // namespace geoalign::match
