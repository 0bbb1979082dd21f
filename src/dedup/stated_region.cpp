#include "dedup/stated_region.h"

#include <charconv>
#include <optional>

namespace geoalign::dedup {

namespace {

std::uint64_t stated_code(const std::optional<AdminDivision>& level) {
  if (!level || level->inferred) return 0;
  std::uint64_t code = 0;
  const auto [end, ec] = std::from_chars(level->code.data(), level->code.data() + level->code.size(), code);
  return ec == std::errc() && end == level->code.data() + level->code.size() ? code : 0;
}

}  // namespace

StatedRegion stated_region(const AdminChain& admin) { return {stated_code(admin.prov), stated_code(admin.city)}; }

}  // namespace geoalign::dedup
