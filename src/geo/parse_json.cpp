#include "geo/parse_json.h"

namespace geoalign::geo {

namespace {

nlohmann::json division_json(const std::optional<AdminDivision>& d) {
  if (!d) return nullptr;
  return d->name;
}

}  // namespace

nlohmann::json parse_json(const ParsedAddress& p) {
  nlohmann::json elements = nlohmann::json::array();
  for (const auto& e : p.elements) {
    elements.push_back({{"tag", e.tag}, {"text", e.text}, {"start", e.start}, {"end", e.end}});
  }
  const AdminChain& a = p.admin;
  nlohmann::json inferred = nlohmann::json::array();
  const std::pair<const char*, const std::optional<AdminDivision>*> levels[] = {
      {"prov", &a.prov}, {"city", &a.city}, {"district", &a.district}, {"town", &a.town}};
  nlohmann::json admin = nlohmann::json::object();
  for (const auto& [name, division] : levels) {
    admin[name] = division_json(*division);
    if (*division && (*division)->inferred) inferred.push_back(name);
  }
  admin["adcode"] = a.adcode.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.adcode);
  admin["inferred"] = inferred;
  admin["ambiguous"] = a.ambiguous;
  if (a.ambiguous) admin["candidates"] = a.candidates;
  return {{"text", p.text}, {"elements", elements}, {"admin", admin}};
}

}  // namespace geoalign::geo
