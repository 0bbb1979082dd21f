#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "runtime/pair_scorer.h"
#include "runtime/request_kind.h"

namespace geoalign::serve {

// /v1/parse: each address (a JsonResultsRequest's `first`) normalized as the model
// normalizes it and parsed by the parser its match head names, answered with the JSON
// `geoalign parse` prints for it.
//
// Parsing needs no model pass: its items skip the model and are parsed on the batcher's
// after-model threads, requests in turn. A long address's CRF parse costs milliseconds;
// on the tokenizer thread (as once here) a parse request held every /v1/match back. A
// parse request gets what the other kinds get: the queue limit (429), a turn beside
// other requests, and the request timeout.
const runtime::RequestKind& parse_kind();

// Whether the scorer's model has a parser (a match head naming one); without it
// /v1/parse answers 404.
bool can_parse(const runtime::PairScorer& scorer);

// /v1/parse's answer for an address the model has already normalized. Throws Error without a parser.
// `guess` as ParseOptions::guess: /v1/parse guesses, as `geoalign parse` does; a match
// explanation shows the chains the head compared, which do not.
nlohmann::json parse_answer(const runtime::PairScorer& scorer, std::string_view normalized, bool guess = true);

}  // namespace geoalign::serve
