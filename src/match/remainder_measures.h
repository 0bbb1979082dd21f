#pragma once

#include <string_view>
#include <vector>

namespace geoalign::match {

// Where the longest run both addresses share sits, and what each leaves over. Map POI
// addresses (the candidates in CCKS-style data) end in the place's name, so a shared run
// that reaches the candidate's end means the query names the candidate itself; text
// after it is a shop or building the query does not mention. a and b are folded
// (match/string_measures.h); ua and ub are the same with building words unified.
//
// Appends: the characters after the shared run in a, in b, and in b without a trailing
// parenthesized branch name (…超市(欣旺花苑店)); -1 for each when no character is shared.
// Then the direction words in b (交叉口, 附近, 对面, 旁, 米, 路口, 东门.., an opening bracket),
// the unit words (单元, 室, 层, 楼, 户) in a and in b, counted before building words are
// unified; then the characters of b that a lacks, of a that b lacks, and the digits
// among each.
void add_remainder_measures(std::u32string_view a, std::u32string_view b, std::u32string_view ua,
                            std::u32string_view ub, std::vector<float>& out);

}  // namespace geoalign::match
