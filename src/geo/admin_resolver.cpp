#include "geo/admin_resolver.h"

#include <algorithm>
#include <optional>

#include "text/utf8.h"

namespace geoalign::geo {

namespace {

constexpr std::size_t kMaxCandidatesListed = 10;

std::optional<AdminLevel> admin_level_of_tag(const std::string& tag) {
  for (std::size_t level = 0; level < kNumAdminLevels; ++level) {
    if (tag == admin_level_name(static_cast<AdminLevel>(level))) return static_cast<AdminLevel>(level);
  }
  return std::nullopt;
}

std::string describe(std::int32_t division, const Gazetteer& g) {
  std::string names;
  for (const auto d : g.chain(division)) {
    if (g.division(d).placeholder) continue;
    if (!names.empty()) names += '/';
    names += g.division(d).name;
  }
  return g.division(division).code + " " + names;
}

}  // namespace

AdminChain resolve_admin(const std::vector<AddressElement>& elements, const Gazetteer& gazetteer) {
  // What each admin element could name, and the level the tagger saw it at.
  std::vector<std::vector<std::int32_t>> readings;
  std::vector<AdminLevel> tagged_levels;
  for (const auto& e : elements) {
    const auto level = admin_level_of_tag(e.tag);
    if (!level) continue;
    const auto found = gazetteer.lookup(text::decode_utf8(e.text));
    if (found.empty()) continue;
    readings.emplace_back(found.begin(), found.end());
    std::sort(readings.back().begin(), readings.back().end());
    tagged_levels.push_back(*level);
  }
  AdminChain admin;
  if (readings.empty()) return admin;

  auto named = [&](std::int32_t d, const std::vector<std::int32_t>& reading) {
    return std::binary_search(reading.begin(), reading.end(), d);
  };
  // Elements the candidate explains, then how many of them at the level they were tagged
  // at: "朝阳区" tagged district is the district, not the street 朝阳区街道.
  auto support = [&](std::int32_t candidate) {
    const auto chain = gazetteer.chain(candidate);
    std::pair<std::size_t, std::size_t> points{0, 0};
    for (std::size_t r = 0; r < readings.size(); ++r) {
      const auto it = std::find_if(chain.begin(), chain.end(), [&](std::int32_t d) { return named(d, readings[r]); });
      if (it == chain.end()) continue;
      ++points.first;
      if (gazetteer.division(*it).level == tagged_levels[r]) ++points.second;
    }
    return points;
  };

  std::vector<std::int32_t> candidates;
  for (const auto& reading : readings) candidates.insert(candidates.end(), reading.begin(), reading.end());
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::pair<std::size_t, std::size_t> best_support{0, 0};
  std::vector<std::int32_t> best;
  for (const auto c : candidates) {
    const auto s = support(c);
    if (s > best_support) {
      best_support = s;
      best.clear();
    }
    if (s == best_support) best.push_back(c);
  }
  // A deeper reading carries everything its ancestor does.
  std::vector<std::int32_t> deepest;
  for (const auto c : best) {
    const bool has_descendant = std::any_of(best.begin(), best.end(), [&](std::int32_t other) {
      return other != c && gazetteer.is_ancestor_or_self(c, other);
    });
    if (!has_descendant) deepest.push_back(c);
  }

  // The levels every reading agrees on.
  std::vector<std::int32_t> shared = gazetteer.chain(deepest.front());
  for (const auto c : deepest) {
    const auto chain = gazetteer.chain(c);
    std::size_t common = 0;
    while (common < shared.size() && common < chain.size() && shared[common] == chain[common]) ++common;
    shared.resize(common);
  }
  if (deepest.size() > 1) {
    admin.ambiguous = true;
    for (std::size_t i = 0; i < deepest.size() && i < kMaxCandidatesListed; ++i) {
      admin.candidates.push_back(describe(deepest[i], gazetteer));
    }
  }

  for (std::size_t i = 0; i < shared.size(); ++i) {
    const Division& d = gazetteer.division(shared[i]);
    // A municipality's city level is a placeholder (市辖区): people call it by the
    // municipality's name, so naming the one names the other.
    const bool stands_for_parent = d.placeholder && d.parent >= 0;
    const std::int32_t named_as = stands_for_parent ? d.parent : shared[i];
    const bool is_named = std::any_of(readings.begin(), readings.end(), [&](const auto& r) { return named(named_as, r); });
    const std::string name = gazetteer.division(named_as).name;
    AdminDivision out{name, d.code, !is_named};
    switch (d.level) {
      case AdminLevel::Prov: admin.prov = out; break;
      case AdminLevel::City: admin.city = out; break;
      case AdminLevel::District: admin.district = out; break;
      case AdminLevel::Town: admin.town = out; break;
    }
  }
  if (!shared.empty()) admin.adcode = gazetteer.division(shared.back()).code;
  return admin;
}

}  // namespace geoalign::geo
