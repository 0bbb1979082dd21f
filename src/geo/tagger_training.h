#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "geo/sequence_tagger.h"

namespace geoalign::geo {

struct TaggedSequence {
  TokenFeatures features;
  std::vector<Label> labels;
};

enum class TaggerAlgorithm {
  // Averaged structured perceptron (Collins 2002): decode each sequence with the current
  // weights and move weights from the predicted labels to the gold ones.
  kPerceptron,
  // Linear-chain CRF: stochastic gradient ascent on each sequence's log-likelihood, every
  // label's weights moved by how far the model's probability for it is from the gold
  // label (ChainPosteriors), with a step that shrinks as 1 / (1 + epochs done).
  kCrf,
};

struct TaggerTrainingOptions {
  TaggerAlgorithm algorithm = TaggerAlgorithm::kCrf;  // as the shipped tagger
  int epochs = 10;
  std::uint64_t seed = 1;
  double learning_rate = 0.1;  // the CRF's first step
  // The CRF moves every label's weight of every feature it sees, mostly by tiny amounts:
  // weights no larger than this are left out of the tagger (0.01 keeps about as many as
  // the perceptron has, and dev F1 as without pruning). The perceptron keeps every weight.
  double prune = 0.01;
  // Called after each epoch with the averaged tagger so far (for dev scores, progress).
  std::function<void(int epoch, const SequenceTagger& tagger)> on_epoch;
};

// Either algorithm returns the average of the weights over all steps, which generalizes
// far better than the last. Deterministic for a given seed.
SequenceTagger train_tagger(const std::vector<TaggedSequence>& data, const TaggerTrainingOptions& options);

}  // namespace geoalign::geo
