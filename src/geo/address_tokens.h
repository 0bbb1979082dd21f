#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/parser.h"

namespace geoalign::geo {

// The unit the element tagger labels, as in the address_ner data: a run of ASCII digits,
// a run of ASCII letters, or one other code point. Offsets are code points into the
// original text, so elements can be reported against what the user gave us.
struct AddressToken {
  std::string text;  // full-width ASCII folded to half-width, so "１２号" tags like "12号"
  std::size_t start = 0, end = 0;
};

// Whitespace and control characters separate tokens and are never tagged.
std::vector<AddressToken> tokenize_address(std::u32string_view text);

// Brackets of every kind and the punctuation that lists an address's parts (, ; / |, in
// any width): the tagged data has no brackets and few such marks, and the tagger glues a
// mark to a neighbour (北京/ as a city, ,江苏 as a POI), so each is an element of its own,
// tagged redundant, and the element after one starts afresh. Not 、, which mostly lists
// within one element (1-1、1-2层): as a separator it cost the match head 0.004 of
// cross-validated macro-F1.
bool separates_elements(char32_t c);
// An element that is one such mark (the parser tags each redundant).
bool separates_elements(const AddressElement& e);

// U+FF01..U+FF5E to ASCII and U+3000 to a space; everything else unchanged. One code
// point in, one out, which keeps offsets valid.
char32_t fold_width(char32_t c);

}  // namespace geoalign::geo
