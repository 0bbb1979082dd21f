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

struct TaggerTrainingOptions {
  int epochs = 10;
  std::uint64_t seed = 1;
  // Called after each epoch with the averaged tagger so far (for dev scores, progress).
  std::function<void(int epoch, const SequenceTagger& tagger)> on_epoch;
};

// Averaged structured perceptron (Collins 2002): decode each sequence with the current
// weights, move weights from the predicted labels to the gold ones, and return the
// average of the weights over all steps, which generalizes far better than the last.
// Deterministic for a given seed.
SequenceTagger train_tagger(const std::vector<TaggedSequence>& data, const TaggerTrainingOptions& options);

}  // namespace geoalign::geo
