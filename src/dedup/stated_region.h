#pragma once

#include <cstdint>

#include "geoalign/parser.h"

namespace geoalign::dedup {

// The province and city an address names itself, as administrative codes; 0 where it
// names none. Levels the parser completed from below do not count: a village name can
// complete to the wrong city, and dedup must not lose a match on a guess.
struct StatedRegion {
  std::uint64_t prov = 0, city = 0;
};
StatedRegion stated_region(const AdminChain& admin);

// Two addresses that each name a different province or city are never one place.
inline bool region_conflict(const StatedRegion& x, const StatedRegion& y) {
  return (x.prov && y.prov && x.prov != y.prov) || (x.city && y.city && x.city != y.city);
}

// The region a group of addresses states between them: each level from whichever names it.
inline StatedRegion combined(const StatedRegion& x, const StatedRegion& y) {
  return {x.prov ? x.prov : y.prov, x.city ? x.city : y.city};
}

}  // namespace geoalign::dedup
