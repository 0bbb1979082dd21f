#pragma once

#include <string>

namespace geoalign::text {

// One spelling for a floor that addresses write several ways, so that the same floor
// compares equal and a basement never reads as the floor of the same number above ground:
// - a basement: 负一层, 负1楼, 地下一层, 地下1楼, 负1F, B1层 and B1F all become 负1层 (a B, not
//   after a Latin letter or digit, with one digit and 层 or F: B1楼 is as often building
//   B1; a dash, as in 36号-2楼, is too often a range or a stray to read as one);
// - a floor in F: 11F and 11f become 11层, and 1F层 becomes 1层 (the digits not after a
//   Latin letter, the F not before a Latin letter or digit, nor before 号, 栋, 座, 幢, 室 or
//   单, where it is a typo or a code: 7f号).
// Part of fold_variants; runs after fold_variant_sequences. Folding twice changes nothing.
void fold_floor_spellings(std::u32string& text);

}  // namespace geoalign::text
