#pragma once

#include <string>
#include <vector>

#include "geo/gazetteer.h"
#include "geoalign/parser.h"

namespace geoalign::geo {

// Completes the administrative chain from the prov/city/district/town elements the
// tagger found. Every division any of those names could refer to is a candidate; a
// candidate scores one point per element naming it or one of its ancestors. The best
// candidates win, a deeper one over its own ancestor; unrelated ties are ambiguous.
AdminChain resolve_admin(const std::vector<AddressElement>& elements, const Gazetteer& gazetteer);

}  // namespace geoalign::geo
