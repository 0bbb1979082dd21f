#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "geo/tag_set.h"

namespace geoalign::geo {

// The probabilities a linear-chain CRF gives one sequence's labels: forward-backward over
// the well-formed label sequences only (transition_allowed), the distribution Viterbi
// decodes the best of. Scaled per token rather than kept in logs, so that each step is
// products and sums without an exponential per label pair.
class ChainPosteriors {
 public:
  // emissions: tokens x kNumLabels; transitions: (kNumLabels + 1) x kNumLabels, the last
  // row scoring the first label (SequenceTagger's layout). At least one token.
  ChainPosteriors(std::span<const float> emissions, std::span<const float> transitions);

  std::size_t tokens() const { return scale_.size(); }
  // log of the sum over every well-formed sequence of exp(its score).
  double log_partition() const { return log_partition_; }
  // P(label of token t is y).
  double label(std::size_t t, Label y) const { return alpha_[t * kNumLabels + y] * beta_[t * kNumLabels + y]; }
  // P(labels of tokens t - 1 and t are from and to), for t >= 1.
  double transition(std::size_t t, Label from, Label to) const;

 private:
  std::vector<double> weight_;  // exp(transition score), 0 where the pair is not allowed
  std::vector<double> emit_;    // exp(emission - the token's largest emission)
  std::vector<double> alpha_, beta_, scale_;
  double log_partition_ = 0.0;
};

}  // namespace geoalign::geo
