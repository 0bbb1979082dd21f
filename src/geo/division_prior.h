#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "geo/gazetteer.h"

namespace geoalign::geo {

// What the admin guess weighs readings by (admin_guess.h): how many real addresses lie in
// each division (the vendored division_counts.tsv, counted by tools/gazetteer/build_prior.py),
// and how many divisions lie under each (from the gazetteer).
class DivisionPrior {
 public:
  // Sizes only: every count is 0.
  explicit DivisionPrior(const Gazetteer& gazetteer);

  // Rows "code<TAB>count"; '#' lines are comments. Each code a division of `gazetteer`, once;
  // counts non-negative integers. Throws Error naming the source and line otherwise.
  static DivisionPrior load(const std::filesystem::path& tsv, const Gazetteer& gazetteer);
  static DivisionPrior parse(std::istream& in, const std::string& source_name, const Gazetteer& gazetteer);

  bool has_counts() const { return has_counts_; }
  // How many counted addresses lie in the division (0 without a row).
  std::uint64_t count(std::int32_t division) const { return counts_[static_cast<std::size_t>(division)]; }
  // How many divisions lie under it, at every level below.
  std::uint32_t size(std::int32_t division) const { return sizes_[static_cast<std::size_t>(division)]; }

 private:
  std::vector<std::uint64_t> counts_;
  std::vector<std::uint32_t> sizes_;
  bool has_counts_ = false;
};

}  // namespace geoalign::geo
