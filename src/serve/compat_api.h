#pragma once

#include <nlohmann/json.hpp>
#include <variant>

#include "serve/api.h"

namespace geoalign::serve {

// Other servers' schemas, for the tools built around them: text-embeddings-inference's
// POST /rerank and OpenAI's POST /v1/embeddings. Both run through the batcher as
// /v1/match and /v1/embed do, with their limits and errors.

// TEI's {"query", "texts", "raw_scores", "return_text", "truncate",
// "truncation_direction"}: the query against each text as /v1/match's pairs.
std::variant<ParsedRequest, ApiError> parse_tei_rerank(const nlohmann::json& body, std::size_t max_items);
// [{"index", "score"(, "text")}, ...], highest score first: P(exact_match) of (query,
// text), or with raw_scores its log-odds.
ResponseBody render_tei_rerank(const ParsedRequest& parsed, const runtime::InferenceRequest& done);

// OpenAI's {"input": "..." | ["...", ...], "model", "encoding_format", "user"}.
std::variant<ParsedRequest, ApiError> parse_openai_embeddings(const nlohmann::json& body, std::size_t max_items);
// {"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model",
// "usage": {"prompt_tokens", "total_tokens"}}; with encoding_format base64 each
// embedding is its little-endian float32 bytes in base64.
ResponseBody render_openai_embeddings(const ParsedRequest& parsed, const runtime::InferenceRequest& done);

}  // namespace geoalign::serve
