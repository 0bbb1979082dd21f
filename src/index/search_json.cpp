#include "index/search_json.h"

namespace geoalign::index {

nlohmann::json search_result_json(const AddressIndex& index, std::string_view query, std::span<const SearchHit> hits) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& h : hits) {
    nlohmann::json hit = {{"id", index.id(h.record)}, {"text", index.text(h.record)}, {"score", h.score}};
    if (h.match) hit["label"] = h.match->label;
    results.push_back(std::move(hit));
  }
  return {{"query", query}, {"results", std::move(results)}};
}

}  // namespace geoalign::index
