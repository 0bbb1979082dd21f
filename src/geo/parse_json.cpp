#include "geo/parse_json.h"

#include <cmath>

namespace geoalign::geo {

namespace {

nlohmann::json division_json(const std::optional<AdminDivision>& d) {
  if (!d) return nullptr;
  return d->name;
}

nlohmann::json element_json(const AddressElement& e) {
  return {{"tag", e.tag}, {"text", e.text}, {"start", e.start}, {"end", e.end}};
}

}  // namespace

nlohmann::json parse_json(const ParsedAddress& p) {
  nlohmann::json elements = nlohmann::json::array();
  for (const auto& e : p.elements) {
    elements.push_back(element_json(e));
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
  // Only where ambiguous and guessing: {"by": "elements"|"prior"|"size", "reading": "330106
  // 浙江省/杭州市/西湖区", "filled": ["prov", "city", "district"]}, with "evidence" ([{"tag",
  // "text", "division", "code"}]) by elements and "share" by prior.
  if (a.guess) {
    const AdminGuess& g = *a.guess;
    nlohmann::json guess = {{"by", g.by}, {"reading", g.reading}, {"filled", g.filled}};
    if (g.by == "elements") {
      nlohmann::json evidence = nlohmann::json::array();
      for (const auto& e : g.evidence) {
        evidence.push_back({{"tag", e.tag}, {"text", e.text}, {"division", e.division}, {"code", e.code}});
      }
      guess["evidence"] = std::move(evidence);
    }
    // Three decimals: a share, not a measurement.
    if (g.by == "prior") guess["share"] = std::round(g.share * 1000.0) / 1000.0;
    admin["guess"] = std::move(guess);
  }
  // Only where the address uses a former name: {"district": {"name": "江干区", "code": "330104",
  // "until": 2021, "now": ["上城区", "钱塘区"], "now_codes": ["330102", "330114"]}}, and
  // "partly"/"partly_codes" where divisions took only a part of it.
  if (!a.historical.empty()) {
    nlohmann::json historical = nlohmann::json::object();
    for (const auto& h : a.historical) {
      nlohmann::json& entry = historical[h.level];
      entry = {{"name", h.name}, {"code", h.code}, {"until", h.until}, {"now", h.now}, {"now_codes", h.now_codes}};
      if (!h.partly.empty()) {
        entry["partly"] = h.partly;
        entry["partly_codes"] = h.partly_codes;
      }
    }
    admin["historical"] = historical;
  }
  // Only where the address contradicts itself: the admin elements the reading overrules.
  if (!a.conflicting.empty()) {
    nlohmann::json conflicting = nlohmann::json::array();
    for (const auto& e : a.conflicting) conflicting.push_back(element_json(e));
    admin["conflicting"] = std::move(conflicting);
  }
  return {{"text", p.text}, {"elements", elements}, {"admin", admin}};
}

}  // namespace geoalign::geo
