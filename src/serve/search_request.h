#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "index/searcher.h"
#include "runtime/inference_request.h"

namespace geoalign::serve {

// A /v1/search request (SearchKind::make_request): its queries are in `first`.
struct SearchRequest : runtime::InferenceRequest {
  index::SearchOptions options;
  // Each query's answer as `geoalign search` writes it, in query order.
  std::vector<nlohmann::json> results;
};

}  // namespace geoalign::serve
