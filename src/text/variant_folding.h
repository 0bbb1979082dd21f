#pragma once

#include <string>

namespace geoalign::text {

// Folds the spellings that real address files mix for one meaning into one, so that a
// noisy copy of an address reads as the address itself:
// - traditional-only characters to simplified (區 -> 区, 號 -> 号; never a character that
//   simplified text uses itself, nor one of an official division name: traditional_chars.inc);
// - circled, parenthesized, superscript and subscript digits to ASCII (⑧ -> 8, ⑩ -> 10);
// - dash variants (– — ― − ~ 〜 ...) to '-', a run of them to one;
// - bracket variants (【】 [] 「」 『』 〔〕 〖〗) to ( );
// - '#' right after a digit to 号 (3#楼 -> 3号楼);
// - quotes and sentence punctuation at either end dropped (“…205号。” -> …205号).
// Expects fullwidth forms already folded to ASCII and blanks already cleaned.
void fold_variants(std::u32string& text);

}  // namespace geoalign::text
