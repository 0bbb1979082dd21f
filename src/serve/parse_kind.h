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
// Parsing needs no model pass and costs about as much as tokenizing (tens of
// microseconds), so the kind answers every item in prepare(), on the batcher's tokenizer
// thread, the way a cache hit is answered. That keeps the I/O thread free without a
// stage of its own, and a parse request gets what the other kinds get: the queue limit
// (429), a turn per slice beside other requests, and the request timeout.
const runtime::RequestKind& parse_kind();

// Whether the scorer's model has a parser (a match head naming one); without it
// /v1/parse answers 404.
bool can_parse(const runtime::PairScorer& scorer);

// /v1/parse's answer for an address the model has already normalized. Needs can_parse().
// `guess` as ParseOptions::guess: /v1/parse guesses, as `geoalign parse` does; a match
// explanation shows the chains the head compared, which do not.
nlohmann::json parse_answer(const runtime::PairScorer& scorer, std::string_view normalized, bool guess = true);

}  // namespace geoalign::serve
