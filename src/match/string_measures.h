#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace geoalign::match {

// The form both addresses are compared in: UTF-8 decoded, full-width folded, Latin
// lower-cased, and Chinese numerals written in Arabic digits, so 八号楼 and 8号楼, 二十三栋
// and 23栋, 一百零八号 and 108号, 壹号 and 1号, 088号 and 88号 compare equal. Throws Error on invalid UTF-8.
std::u32string folded(std::string_view utf8);
// The same in two steps, for a caller that needs both forms: the width and case folding
// alone (文三路 stays 文三路, where 三 is a name, not a number), then the numerals of that
// written in Arabic digits. folded(s) == with_arabic_numerals(folded_letters(s)).
std::u32string folded_letters(std::string_view utf8);
std::u32string with_arabic_numerals(std::u32string letters);
// Each run of Arabic digits without the zeros that pad it, so 088号 and 88号, 0301室 and
// 301室 name one number (with_arabic_numerals applies it). A run after a decimal point
// keeps them (1.05).
std::u32string without_leading_zeros(std::u32string s);

// Building words in one form: 8栋, 8幢, 8座 and 8号楼 all become 8#, and 号院 becomes 院.
std::u32string unify_building_words(std::u32string s);

std::size_t lcs_length(std::u32string_view a, std::u32string_view b);

// Longest run of characters both strings share: a shop or compound name both mention
// (王妃制衣厂, 彩澜包装), where a subsequence would also count scattered characters. Its
// ends are offsets one past its last character. Among equally long runs, the one ending
// first in a wins, and of those the one ending last in b.
struct SharedRun {
  std::size_t length = 0, end_a = 0, end_b = 0;
};
SharedRun longest_shared_run(std::u32string_view a, std::u32string_view b);

// Either string inside the other.
bool contains(std::u32string_view a, std::u32string_view b);

}  // namespace geoalign::match
