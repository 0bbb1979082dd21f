#pragma once

#include <functional>
#include <span>
#include <vector>

#include "cli/args.h"
#include "geoalign/matcher.h"

namespace geoalign::cli {

// score's and eval's --head: the model as Matcher runs it (the encoder, then its match
// head when it has one), or its rerank head alone, so that the rerank head's answers
// and accuracy can be seen on any file.
extern const Args::Option kHeadOption;
// score's, eval's and serve's --ordered: a pair read as given (PairReading::Ordered).
extern const Args::Option kOrderedOption;
// score's and eval's --device, where the encoder runs.
extern const Args::Option kDeviceOption;

using ScorePairs = std::function<std::vector<MatchResult>(std::span<const AddressPair>)>;

// From --head, --model, --precision, --threads and --device; batch_size is the encoder's.
ScorePairs load_pair_scoring(const Args& args, std::size_t batch_size);

}  // namespace geoalign::cli
