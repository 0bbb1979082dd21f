#pragma once

#include <string>

namespace geoalign::text {

// One spelling for the variants that real address files mix for one meaning, so that a
// noisy copy of an address reads as the address itself. In two steps around blank
// cleaning, which must see the folded characters (a blank beside a dash goes, as beside
// '-') and must have run before the sequences are read ("3 #" is "3#" only after it).

// Character for character:
// - traditional-only characters to simplified (區 -> 区, 號 -> 号; never a character that
//   simplified text uses itself, nor one of an official division name: traditional_chars.inc);
// - circled, parenthesized, superscript and subscript digits to ASCII (⑧ -> 8, ⑩ -> 10);
// - dash variants (‐ ‑ ‒ – — ― − ﹘ ﹣) to '-' (tildes stay: 1~3号 is a range);
// - bracket variants (【】 [] 「」 『』 〔〕 〖〗) to ( ).
void fold_variant_characters(std::u32string& text);

// The bracket variants above to ( and ); any other character unchanged.
char32_t fold_bracket(char32_t c);

// Then:
// - '#' right after a digit to 号 (3#楼 -> 3号楼);
// - a run of '-' to one;
// - a dot between two Chinese characters dropped (· • ‧ ∙ ・ ･ and '.': 三一·新境界 is
//   三一新境界; a decimal in Chinese numerals, 三.五层, goes too, but addresses write those
//   in digits);
// - at the start, quotes and punctuation (。，,、;；:：.!！?？"'`“”‘’«»·•…_) dropped; at the
//   end those and '-' ("-1层" is a basement, "12号-" a stray dash). An address that is
//   nothing but such characters stays as it is: a placeholder row, not an empty one.
void fold_variant_sequences(std::u32string& text);

// Whether c is one of the dots that join the parts of a name (three of them above).
bool is_name_dot(char32_t c);

}  // namespace geoalign::text
