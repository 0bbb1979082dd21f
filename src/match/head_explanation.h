#pragma once

#include <span>
#include <string>
#include <vector>

#include "match/match_head.h"

namespace geoalign::match {

// One input of the match head's trees, and how much the head's answer for a pair
// rests on it.
struct InputInfluence {
  std::string name;  // a pair feature (match/pair_features.h), encoder_pK or order_swapped, as `geoalign features` names it
  float value = 0;   // what the trees read for this pair
  // The answered label's probability minus its probability with every test on this input
  // reversed: positive when the input's value argues for the answer, negative when it
  // argues against it.
  float influence = 0;
};

// The inputs the head's answer `label` for one pair rests on most: at most `count`, by
// decreasing |influence|, leaving out those no tree on the pair's paths tests. Boosted
// trees keep no per-node statistics to split a prediction exactly among its inputs, so
// this asks each input the question the trees themselves ask of it: what if every test
// on it had gone the other way? `order_swapped`: the pair's order input, for a head that
// reads pairs in canonical order (the pair as it was given: the ordered reading).
std::vector<InputInfluence> strongest_inputs(const MatchHead& head, std::span<const float> pair_features,
                                             std::span<const float> encoder_probabilities, bool order_swapped,
                                             std::size_t label, std::size_t count);

}  // namespace geoalign::match
