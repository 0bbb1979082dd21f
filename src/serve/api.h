#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "index/searcher.h"
#include "runtime/inference_request.h"

namespace geoalign::serve {

// The JSON side of the HTTP API, free of any networking so it can be tested directly.

struct ApiError {
  int status;         // HTTP status
  std::string type;   // machine-readable: invalid_json, invalid_request, invalid_text, too_large, ...
  std::string message;
};

enum class Endpoint { Match, Embed, KServeInfer, Search };

struct ParsedRequest {
  std::vector<std::string> first, second;  // pairs, addresses or queries
  std::string id;                           // KServe request id, echoed back
  index::SearchOptions search;              // /v1/search's; its region is a name (北京市), not yet a code
};

// The inference endpoint a request target names, if any.
std::optional<Endpoint> inference_endpoint(std::string_view target);

// Validates a request body for the endpoint: 400 for malformed JSON, wrong types or
// missing fields; 422 for empty or invalid text; 413 for more than max_items items.
// /v1/match and /v1/embed need at least one item; /v1/search answers none with none.
std::variant<ParsedRequest, ApiError> parse_request(Endpoint endpoint, std::string_view body, std::size_t max_items);

std::string render_response(Endpoint endpoint, const ParsedRequest& parsed, const runtime::InferenceRequest& done);
std::string render_error(const ApiError& error);
// KServe v2 model metadata for GET /v2/models/geoalign.
std::string render_model_metadata(const std::vector<std::string>& labels, std::size_t embedding_dim);

}  // namespace geoalign::serve
