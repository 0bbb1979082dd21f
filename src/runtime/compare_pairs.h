#pragma once

#include <span>
#include <vector>

#include "match/pair_comparer.h"
#include "runtime/normalized_pair.h"

namespace geoalign::runtime {

// The comparer's pair features of each pair, in input order, over every core. Files of
// candidate pairs repeat their queries (CCKS: 3,964 distinct first addresses in 18,373
// pairs) and parsing is most of the comparing, so each distinct address is parsed and
// read once: features(compared(parse(a)), compared(parse(b))) equals features(a, b).
// Throws Error naming the lowest pair that fails.
std::vector<std::vector<float>> compare_pairs(const match::PairComparer& comparer, std::span<const NormalizedPair> pairs);

}  // namespace geoalign::runtime
