#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "geo/tag_set.h"

namespace geoalign::geo {

// Best label sequence under first-order scores, allowing only well-formed elements
// (I-x after B-x or I-x). emissions: tokens x kNumLabels. transitions: (kNumLabels + 1)
// x kNumLabels, row kNumLabels scoring the first label.
std::vector<Label> viterbi(std::span<const float> emissions, std::span<const float> transitions);

}  // namespace geoalign::geo
