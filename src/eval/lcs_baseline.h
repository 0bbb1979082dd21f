#pragma once

#include <cstddef>
#include <string_view>

namespace geoalign::eval {

// The string-similarity baseline the field reports against: the longest common
// subsequence of the two addresses (in code points) over the longer one's length,
// cut by two thresholds into not / partial / exact. Addresses are compared by their first
// kMaxLcsChars code points: the table grows with the product of the lengths, and a 1 MiB
// row would take minutes (real addresses are under a hundred).
constexpr std::size_t kMaxLcsChars = 4096;
double lcs_ratio(std::string_view a, std::string_view b);

struct LcsThresholds {
  double partial = 0.31;  // ratio >= partial: partial_match (tuned on the CCKS train split,
  double exact = 0.57;    // ratio >= exact: exact_match   tools/train/tune_lcs_baseline.py)
};

// 0 = not_match, 1 = partial_match, 2 = exact_match.
int lcs_label(double ratio, const LcsThresholds& t = {});

}  // namespace geoalign::eval
