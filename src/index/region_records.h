#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace geoalign::index {

// Some records of an index, as search's region filters select them: lists of record
// numbers to walk when few, and a test of one record when many.
struct RecordSet {
  std::vector<std::span<const std::uint32_t>> lists;  // disjoint
  std::size_t size = 0;                               // records in all the lists
  std::function<bool(std::uint32_t record)> contains;

  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& list : lists) {
      for (const std::uint32_t r : list) fn(r);
    }
  }
};

// The records of each adcode: a region filter gathers the lists of the codes under the
// region instead of scanning the index, and keeps nothing per region. Its memory is
// bounded by the index, not by the regions asked for: a record number (4 bytes) per
// record, twice for a record whose code is a guess, plus one entry per distinct code
// (tens of thousands at most: the gazetteer's towns). Not thread-safe for add(); const
// members are.
class RegionRecords {
 public:
  // Record `record` (numbered after every one added before) has adcode `code`, a guess
  // (the likeliest reading of an ambiguous chain) when `guess`.
  void add(std::uint32_t record, std::string_view code, bool guess);

  // The lists of the records whose code starts with `region`; with `or_unknown`, also of
  // those not known to lie outside it: a code that stops above the region's level (none,
  // or the region's province alone), or any guess (朝阳区… may be 长春's).
  std::vector<std::span<const std::uint32_t>> lists_in(std::string_view region, bool or_unknown) const;

 private:
  struct CodeRecords {
    std::vector<std::uint32_t> sure, guessed;
  };
  std::unordered_map<std::string, CodeRecords> by_code_;
  std::vector<std::string> codes_;          // by_code_'s keys, sorted: a region's codes are one run
  std::vector<std::uint32_t> all_guessed_;  // every record whose code is a guess
};

}  // namespace geoalign::index
