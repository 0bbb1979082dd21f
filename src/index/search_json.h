#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "index/searcher.h"

namespace geoalign::index {

// One query's results as `geoalign search` writes them and the server's /v1/search
// answers them: {"query": ..., "results": [{"id", "text", "score", "label"}, ...]}, where
// only reranked hits carry a label.
nlohmann::json search_result_json(const AddressIndex& index, std::string_view query, std::span<const SearchHit> hits);

}  // namespace geoalign::index
