#include "index/region_records.h"

#include <algorithm>

namespace geoalign::index {

void RegionRecords::add(std::uint32_t record, std::string_view code, bool guess) {
  auto [it, added] = by_code_.try_emplace(std::string(code));
  if (added) codes_.insert(std::upper_bound(codes_.begin(), codes_.end(), it->first), it->first);
  (guess ? it->second.guessed : it->second.sure).push_back(record);
  if (guess) all_guessed_.push_back(record);
}

std::vector<std::span<const std::uint32_t>> RegionRecords::lists_in(std::string_view region, bool or_unknown) const {
  std::vector<std::span<const std::uint32_t>> lists;
  auto add_list = [&](const std::vector<std::uint32_t>& list) {
    if (!list.empty()) lists.emplace_back(list);
  };
  for (auto c = std::lower_bound(codes_.begin(), codes_.end(), region); c != codes_.end() && c->starts_with(region); ++c) {
    const CodeRecords& records = by_code_.at(*c);
    add_list(records.sure);
    if (!or_unknown) add_list(records.guessed);  // with or_unknown, every guess comes below
  }
  if (!or_unknown) return lists;
  for (std::size_t length = 0; length < region.size(); ++length) {
    if (const auto above = by_code_.find(std::string(region.substr(0, length))); above != by_code_.end()) {
      add_list(above->second.sure);
    }
  }
  add_list(all_guessed_);
  return lists;
}

}  // namespace geoalign::index
