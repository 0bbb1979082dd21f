#include "runtime/compare_pairs.h"

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/run_in_parallel.h"

namespace geoalign::runtime {

std::vector<std::vector<float>> compare_pairs(const match::PairComparer& comparer, std::span<const NormalizedPair> pairs) {
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<std::string_view> distinct;
  std::vector<std::size_t> first_pair;  // per distinct address
  std::vector<std::array<std::size_t, 2>> sides(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    for (std::size_t side = 0; side < 2; ++side) {
      const std::string_view text = side == 0 ? pairs[i].a : pairs[i].b;
      const auto [at, added] = index.emplace(text, distinct.size());
      if (added) {
        distinct.push_back(text);
        first_pair.push_back(i);
      }
      sides[i][side] = at->second;
    }
  }
  // Addresses are numbered as pairs first name them, so the lowest failing one is in the
  // lowest pair that fails, as comparing a pair at a time would report.
  const auto pair_of = [&](std::size_t d) { return "pair " + std::to_string(first_pair[d]); };
  const auto parsed =
      run_in_parallel_named(distinct.size(), pair_of, [&](std::size_t d) { return comparer.parse(distinct[d]); });
  const auto read =
      run_in_parallel_named(distinct.size(), pair_of, [&](std::size_t d) { return comparer.compared(parsed[d]); });
  return run_in_parallel(pairs.size(), "pair",
                         [&](std::size_t i) { return comparer.features(read[sides[i][0]], read[sides[i][1]]); });
}

}  // namespace geoalign::runtime
