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
// every gazetteer name found in them (anywhere in a POI, community, company or other
// name; at the start of a road, and then only a town's name, as 三墩 in 三墩街: roads are
// named after other cities everywhere) counts once for each candidate one of the places
// it names lies in or above, unless it names them all or none. Names a town-level unit
// without a place's suffix has (开发区, 七星农场) do not count, nor names the admin elements
// give a district or town by (`named`, sorted: 阳明工业园区 beside 阳明街道 repeats the
// street's name); a province or city named again (湖州 in 湖州分公司) does. One candidate
// with the most such names wins. Otherwise, among those with the most, the prior: the
// candidate's count, then its parent's, and so on up (two towns 新桥镇 neither counted: the
// one in the county counted more often). Then the most divisions under it, then the first
// in gazetteer order.
GuessedReading guess_reading(std::span<const std::int32_t> candidates, const std::vector<AddressElement>& elements,
                             std::span<const std::int32_t> named, const Gazetteer& gazetteer,
                             const DivisionPrior& prior);

}  // namespace geoalign::geo
