#include "eval/lcs_baseline.h"

#include <algorithm>
#include <vector>

#include "text/utf8.h"

namespace geoalign::eval {

double lcs_ratio(std::string_view a, std::string_view b) {
  std::u32string x = text::decode_utf8(a), y = text::decode_utf8(b);
  x.resize(std::min(x.size(), kMaxLcsChars));
  y.resize(std::min(y.size(), kMaxLcsChars));
  if (x.empty() || y.empty()) return 0.0;
  std::vector<std::size_t> row(y.size() + 1, 0), next(y.size() + 1, 0);
  for (char32_t cx : x) {
    for (std::size_t j = 0; j < y.size(); ++j) next[j + 1] = cx == y[j] ? row[j] + 1 : std::max(row[j + 1], next[j]);
    std::swap(row, next);
  }
  return static_cast<double>(row[y.size()]) / static_cast<double>(std::max(x.size(), y.size()));
}

int lcs_label(double ratio, const LcsThresholds& t) { return ratio >= t.exact ? 2 : ratio >= t.partial ? 1 : 0; }

}  // namespace geoalign::eval
