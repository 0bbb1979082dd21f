#include "match/head_explanation.h"

#include <algorithm>
#include <cmath>

#include "geoalign/error.h"

namespace geoalign::match {

std::vector<InputInfluence> strongest_inputs(const MatchHead& head, std::span<const float> pair_features,
                                             std::span<const float> encoder_probabilities, bool order_swapped,
                                             std::size_t label, std::size_t count) {
  const std::vector<std::string>& names = head.input_names();
  const std::vector<float> reversed = head.probabilities_with_tests_reversed(pair_features, encoder_probabilities, order_swapped);
  const std::size_t labels = reversed.size() / names.size();
  if (label >= labels) {
    throw Error("match head: no label " + std::to_string(label) + " among its " + std::to_string(labels));
  }
  std::vector<float> answered(labels);
  const std::span<const float> one[] = {pair_features};
  head.probabilities(one, encoder_probabilities, answered, order_swapped);

  std::vector<InputInfluence> inputs;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const float influence = answered[label] - reversed[i * labels + label];
    if (influence == 0) continue;  // no test on this pair's paths reads it
    const std::size_t e = i - pair_features.size();  // past the pair features: the encoder's, then the order
    const float value = i < pair_features.size()          ? pair_features[i]
                        : e < encoder_probabilities.size() ? encoder_probabilities[e]
                                                           : (order_swapped ? 1.0f : 0.0f);
    inputs.push_back({names[i], value, influence});
  }
  const auto stronger = [](const InputInfluence& a, const InputInfluence& b) {
    return std::abs(a.influence) > std::abs(b.influence);
  };
  const std::size_t kept = std::min(count, inputs.size());
  std::partial_sort(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(kept), inputs.end(), stronger);
  inputs.resize(kept);
  return inputs;
}

}  // namespace geoalign::match
