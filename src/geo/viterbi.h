#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "geo/tag_set.h"

namespace geoalign::geo {

// The transition weights (kNumLabels + 1) x kNumLabels, row kNumLabels scoring the first
// label, laid out for decoding: built once per tagger rather than once per address.
class ViterbiTransitions {
 public:
  explicit ViterbiTransitions(std::span<const float> transitions);

  // B- and S- labels may follow any label that closes an element, so they are scored for
  // all tags at once: row x holds the weights from label x into each tag's B- and S-
  // labels (lane open_lane(tag, kind)), padded with -inf to the width of the vectors
  // that read it.
  static constexpr std::size_t kOpenLanes = 48;
  static_assert(2 * kNumTags <= kOpenLanes);
  static constexpr std::size_t open_lane(std::size_t tag, LabelKind kind) {
    return 2 * tag + (kind == LabelKind::kSingle ? 1 : 0);
  }
  const float* into_open(std::size_t from) const { return &into_open_[from * kOpenLanes]; }
  float weight(std::size_t from, std::size_t to) const { return weights_[from * kNumLabels + to]; }
  float first(std::size_t label) const { return weights_[kNumLabels * kNumLabels + label]; }

 private:
  alignas(64) std::array<float, kNumLabels * kOpenLanes> into_open_;
  std::array<float, (kNumLabels + 1) * kNumLabels> weights_;
};

// Best label sequence under first-order scores, allowing only well-formed sequences
// (transition_allowed, may_end). emissions: tokens x kNumLabels. Among equal scores the
// lowest predecessor label wins.
std::vector<Label> viterbi(std::span<const float> emissions, const ViterbiTransitions& transitions);
std::vector<Label> viterbi(std::span<const float> emissions, std::span<const float> transitions);

}  // namespace geoalign::geo
