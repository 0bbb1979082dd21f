#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "dedup/pair_evidence.h"
#include "engine/engine.h"

namespace geoalign::dedup {

// Scores pairs of parsed addresses (numbers into `addresses`) with the model's pair
// scorer in the symmetric reading (PairReading::Symmetric: the mean of both orders), as
// which of two addresses came first in a file must not decide whether they merge. In
// chunks over every core when it is the rerank head, chunk after chunk when it is the
// cross-encoder (which uses every core itself). Evidence comes back in pair order;
// `on_done` (may be empty) hears how many pairs are done.
std::vector<PairEvidence> score_pairs(const engine::Engine& model, std::span<const engine::Address> addresses,
                                      std::span<const AddressPair> pairs,
                                      const std::function<void(std::size_t)>& on_done = {});

}  // namespace geoalign::dedup
