#pragma once

#include <cstddef>

#include "runtime/pair_scorer.h"
#include "runtime/request_kind.h"

namespace geoalign::serve {

// The match head inputs an explanation lists, strongest first.
inline constexpr std::size_t kExplainedInputs = 10;

// /v1/match with "explain": true. A JsonResultsRequest whose pairs are classified as
// runtime::match_kind() classifies them, into `matches`, and each explained, into
// `results`: {"parses": [addr1's, addr2's] as /v1/parse answers them, "features": the
// head inputs the answer rests on most (match/head_explanation.h) as {name, value,
// influence}}.
//
// The cache is neither read nor written: an explanation needs the pair features and the
// encoder's probabilities, which a cached result does not keep. Explaining walks each
// tree again for the inputs its path tests and parses both addresses whole: work for
// the after-model threads, so the model goes on meanwhile.
const runtime::RequestKind& explain_kind();

// Whether the scorer's model can explain its answers (it has a match head); without one,
// "explain": true gets 400.
bool can_explain(const runtime::PairScorer& scorer);

}  // namespace geoalign::serve
