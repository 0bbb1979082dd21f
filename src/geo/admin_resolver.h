#pragma once

#include <string>
#include <vector>

#include "geo/division_prior.h"
#include "geo/gazetteer.h"
#include "geo/historical.h"
#include "geoalign/parser.h"

namespace geoalign::geo {

// Completes the administrative chain from the prov/city/district/town elements the
// tagger found. Every division any of those names could refer to is a candidate; a
// candidate scores one point per element naming it or one of its ancestors. The best
// candidates win, a deeper one over its own ancestor; unrelated ties are ambiguous.
// Between candidates that explain as many elements, those explaining the more specific
// ones win: an element counts 1/n where its name could be n places (江干区 is one former
// district, 高桥镇 ten towns). A town's name also reads as the same stem with another
// suffix (九堡镇 as 九堡街道: towns become streets), below the name as written.
//
// With `historical`, an element may also name a former division (下城区, 江干区), and then
// names its current successors (拱墅区; 上城区 or 钱塘区), or a partial successor where another
// element puts the address there (茂港区羊角镇: 茂南区). A former name never counts where a
// current division of the same name has the same parent, and between readings that explain
// as many elements, as specific, those explaining more of them by current names win: a
// former name decides only where it is the better evidence (江干区丁桥镇: one former
// district against two towns elsewhere). A tie among the successors of one former division
// is not ambiguous: the chain stops above them, and AdminChain::historical lists them (the
// partial successors apart, in `partly`). A current division's earlier extent (余杭区 before
// 临平区 took its 塘栖镇) adds only partial successors: 余杭区塘栖镇 reads in 临平区.
//
// With `guess`, an ambiguous chain's levels are filled with the reading guess_reading()
// picks (admin_guess.h), and AdminChain::guess says how; `ambiguous` and `candidates` are
// as without it. Without, only the levels every reading shares are filled.
AdminChain resolve_admin(const std::vector<AddressElement>& elements, const Gazetteer& gazetteer,
                         const HistoricalDivisions* historical = nullptr, const DivisionPrior* guess = nullptr);

}  // namespace geoalign::geo
