#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "index/searcher.h"
#include "runtime/inference_request.h"

namespace geoalign::serve {

// A request whose kind answers each item with a JSON object, rendered as
// {"results": [...]} in item order (/v1/search, /v1/parse).
struct JsonResultsRequest : runtime::InferenceRequest {
  std::vector<nlohmann::json> results;
};

// A /v1/search request (SearchKind::make_request): its queries are in `first`; each
// result is the query's answer as `geoalign search` writes it.
struct SearchRequest : JsonResultsRequest {
  index::SearchOptions options;
};

}  // namespace geoalign::serve
