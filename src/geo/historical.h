#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "geo/flat_u64_map.h"
#include "geo/gazetteer.h"

namespace geoalign::geo {

// A prefecture- or county-level division that no longer exists under this name: abolished,
// merged into another or renamed (江干区, split between 上城区 and 钱塘区 in 2021).
struct FormerDivision {
  std::string code;  // its code then
  std::string name;
  AdminLevel level = AdminLevel::District;
  std::string parent_code;   // its parent then: a current division's code or a former one's
  std::int32_t parent = -1;  // the parent's index in the Gazetteer when it is current, else -1
  int until_year = 0;
  std::vector<std::int32_t> successors;  // Gazetteer indices of the current divisions in its place
  // Current divisions that took only a part of it (茂港区's 羊角镇, now in 茂南区): an address
  // naming it reads there only where another element (the town) puts it there.
  std::vector<std::int32_t> partial_successors;
  // A current division as it was before it ceded towns to another (余杭区, whose 塘栖镇 is in
  // 临平区 since 2021): the row has its code and name, and its only successor is itself.
  // It is not another place of that name: it only lets an address that names it with a
  // ceded town read in the county that holds the town now.
  bool earlier_extent = false;
};

// The vendored historical.tsv beside divisions.tsv: former divisions by their full and
// short names (江干区, 江干), each naming its current successors.
class HistoricalDivisions {
 public:
  HistoricalDivisions() = default;

  // Rows "code<TAB>level<TAB>name<TAB>parent_code<TAB>until_year<TAB>successor_codes[<TAB>...]"
  // (successor codes comma-separated, then optionally '|' and the partial successors' codes;
  // further columns are notes); '#' lines are comments.
  // Successors must be divisions of `current`, and a parent either a division of `current`
  // or a row of the file, one level up. Throws Error naming the source and line otherwise.
  static HistoricalDivisions load(const std::filesystem::path& tsv, const Gazetteer& current);
  static HistoricalDivisions parse(std::istream& in, const std::string& source_name, const Gazetteer& current);

  bool empty() const { return divisions_.empty(); }
  const std::vector<FormerDivision>& divisions() const { return divisions_; }
  const FormerDivision& division(std::int32_t index) const { return divisions_[static_cast<std::size_t>(index)]; }

  // Former divisions whose full or short name is exactly `name`.
  std::span<const std::int32_t> lookup(std::u32string_view name) const;

  // Walks the trie of full names (江干区, not 江干) that are not also current names, along
  // `name`, calling found(length, former divisions) for every prefix that is one. The
  // tagger's gazetteer features use it: a full former name is as rare in other text as a
  // current one, and one that is a current name too has its current features already.
  template <typename Found>
  void full_name_prefixes(std::u32string_view name, Found&& found) const {
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
      const std::uint32_t* child = edges_.find((std::uint64_t{node} << 21) | name[i]);
      if (!child) return;
      node = *child;
      const auto values = std::span<const std::int32_t>(values_).subspan(value_begin_[node], value_begin_[node + 1] - value_begin_[node]);
      if (!values.empty()) found(i + 1, values);
    }
  }

 private:
  std::vector<FormerDivision> divisions_;
  std::unordered_map<std::u32string, std::vector<std::int32_t>> by_name_;
  FlatU64Map<std::uint32_t> edges_;  // (node << 21 | code point) -> child, as the Gazetteer's
  std::vector<std::uint32_t> value_begin_{0, 0};
  std::vector<std::int32_t> values_;
};

}  // namespace geoalign::geo
