#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "geo/division_prior.h"
#include "geo/gazetteer.h"
#include "geoalign/parser.h"

namespace geoalign::geo {

struct GuessedReading {
  std::int32_t division = -1;  // the candidate chosen
  AdminGuess guess;            // by, and evidence or share (reading and filled are the caller's)
};

// Picks the most likely of the ambiguous readings `candidates` (the deepest divisions the
// admin elements fit equally well; at least one). First the address's other elements:
// every name of the gazetteer found in them (anywhere in a POI, community, company or
// other name; at the start of a road, and then only a town's name, as 三墩街 in 三墩镇:
// roads are named after other cities everywhere) that is not one of the names the admin
// elements already gave (`named`, sorted), and that lies in or above some candidates but
// not all, counts once for each of those. One candidate with the most such names wins.
// Otherwise, among those with the most, the prior: the candidate's own count, then its
// parent's, and so on up (the towns 新桥镇 of two counties, neither named in the counts:
// the one in the county named more often). Then the most divisions under it, then the
// first in gazetteer order.
GuessedReading guess_reading(std::span<const std::int32_t> candidates, const std::vector<AddressElement>& elements,
                             std::span<const std::int32_t> named, const Gazetteer& gazetteer,
                             const DivisionPrior& prior);

}  // namespace geoalign::geo
