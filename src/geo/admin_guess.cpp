#include "geo/admin_guess.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "text/utf8.h"

namespace geoalign::geo {

namespace {

bool is_admin_tag(std::string_view tag) { return tag == "prov" || tag == "city" || tag == "district" || tag == "town"; }

// Numbers name no place.
bool is_number_tag(std::string_view tag) {
  return tag == "roadno" || tag == "subroadno" || tag == "houseno" || tag == "cellno" || tag == "floorno" ||
         tag == "roomno";
}

bool is_road_tag(std::string_view tag) { return tag == "road" || tag == "subroad"; }

// A town-level division named as places are (五常街道, 三墩镇, 来广营地区), not one of the
// statistics bureau's development zones, farms and such (开发区, 七星农场), whose names are
// as common in company and park names as anywhere.
bool is_named_place(const Division& d) {
  if (d.level != AdminLevel::Town) return true;
  for (const std::string_view suffix : {"街道", "镇", "乡", "苏木", "地区"}) {
    if (d.name.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace

GuessedReading guess_reading(std::span<const std::int32_t> candidates, const std::vector<AddressElement>& elements,
                             std::span<const std::int32_t> named, const Gazetteer& gazetteer,
                             const DivisionPrior& prior) {
  const std::size_t n = candidates.size();
  GuessedReading out;
  if (n == 0) return out;
  if (n == 1) {
    out.division = candidates.front();
    out.guess.by = "size";
    return out;
  }

  // The candidates each division lies in or above.
  std::unordered_map<std::int32_t, std::vector<std::uint32_t>> at_or_above;
  std::unordered_map<std::int32_t, std::uint32_t> candidate_index;
  for (std::uint32_t i = 0; i < n; ++i) {
    candidate_index.emplace(candidates[i], i);
    for (std::int32_t d = candidates[i]; d >= 0; d = gazetteer.division(d).parent) at_or_above[d].push_back(i);
  }
  auto related = [&](std::int32_t d, std::vector<std::uint32_t>& rel) {
    rel.clear();
    if (const auto it = at_or_above.find(d); it != at_or_above.end()) rel = it->second;
    for (std::int32_t up = gazetteer.division(d).parent; up >= 0; up = gazetteer.division(up).parent) {
      if (const auto it = candidate_index.find(up); it != candidate_index.end()) rel.push_back(it->second);
    }
    std::sort(rel.begin(), rel.end());
    rel.erase(std::unique(rel.begin(), rel.end()), rel.end());
  };

  // The names in the other elements, each counted once, for every candidate one of the
  // places it names lies in or above.
  std::vector<std::uint32_t> support(n, 0);
  struct Hit {
    std::vector<std::int32_t> divisions;  // the places the name names, as far as they count
    std::size_t element;
  };
  std::vector<Hit> hits;
  std::unordered_set<std::u32string> seen;
  std::vector<std::uint32_t> rel, name_rel;
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const AddressElement& element = elements[e];
    if (is_admin_tag(element.tag) || is_number_tag(element.tag)) continue;
    const bool road = is_road_tag(element.tag);
    const std::u32string text = text::decode_utf8(element.text);
    for (std::size_t start = 0; start < text.size() && (start == 0 || !road); ++start) {
      const std::u32string_view rest = std::u32string_view(text).substr(start);
      gazetteer.prefixes(rest, [&](std::size_t length, std::span<const std::int32_t> found) {
        if (!seen.emplace(rest.substr(0, length)).second) return;
        // A name the admin elements give a district or town by is read no further: 阳明工业园区
        // beside 阳明街道 repeats the street's name, and is no sign of 阳明区.
        const bool repeats = std::any_of(found.begin(), found.end(), [&](std::int32_t d) {
          const AdminLevel level = gazetteer.division(d).level;
          return (level == AdminLevel::District || level == AdminLevel::Town) &&
                 std::binary_search(named.begin(), named.end(), d);
        });
        if (repeats) return;
        Hit hit{{}, e};
        name_rel.clear();
        for (const auto d : found) {
          const Division& division = gazetteer.division(d);
          if ((road && division.level != AdminLevel::Town) || !is_named_place(division)) continue;
          related(d, rel);
          if (rel.empty()) continue;
          hit.divisions.push_back(d);
          name_rel.insert(name_rel.end(), rel.begin(), rel.end());
        }
        std::sort(name_rel.begin(), name_rel.end());
        name_rel.erase(std::unique(name_rel.begin(), name_rel.end()), name_rel.end());
        if (name_rel.empty() || name_rel.size() == n) return;  // says nothing between the candidates
        for (const auto i : name_rel) ++support[i];
        hits.push_back(std::move(hit));
      });
    }
  }
  const std::uint32_t most = *std::max_element(support.begin(), support.end());
  std::vector<std::uint32_t> pool;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (support[i] == most) pool.push_back(i);
  }
  if (most > 0 && pool.size() == 1) {
    out.division = candidates[pool.front()];
    out.guess.by = "elements";
    for (const Hit& hit : hits) {
      for (const auto division : hit.divisions) {
        if (!gazetteer.is_ancestor_or_self(division, out.division) &&
            !gazetteer.is_ancestor_or_self(out.division, division)) {
          continue;
        }
        const Division& d = gazetteer.division(division);
        GuessEvidence evidence{elements[hit.element].tag, elements[hit.element].text, d.name, d.code};
        const bool listed = std::any_of(out.guess.evidence.begin(), out.guess.evidence.end(), [&](const GuessEvidence& x) {
          return x.code == evidence.code && x.tag == evidence.tag && x.text == evidence.text;
        });
        if (!listed) out.guess.evidence.push_back(std::move(evidence));
      }
    }
    return out;
  }

  // The prior: each candidate's count, then its parent's, and so on up, narrowing the pool
  // at the first level where the counts differ.
  std::vector<std::int32_t> at(pool.size());
  for (std::size_t k = 0; k < pool.size(); ++k) at[k] = candidates[pool[k]];
  while (pool.size() > 1 && std::any_of(at.begin(), at.end(), [](std::int32_t d) { return d >= 0; })) {
    std::uint64_t best = 0, sum = 0;
    for (const auto d : at) {
      const std::uint64_t c = d >= 0 ? prior.count(d) : 0;
      best = std::max(best, c);
      sum += c;
    }
    if (best > 0) {
      std::vector<std::uint32_t> kept_pool;
      std::vector<std::int32_t> kept_at;
      for (std::size_t k = 0; k < pool.size(); ++k) {
        if (at[k] >= 0 && prior.count(at[k]) == best) {
          kept_pool.push_back(pool[k]);
          kept_at.push_back(at[k]);
        }
      }
      pool = std::move(kept_pool);
      at = std::move(kept_at);
      if (pool.size() == 1) {
        out.division = candidates[pool.front()];
        out.guess.by = "prior";
        out.guess.share = static_cast<double>(best) / static_cast<double>(sum);
        return out;
      }
    }
    for (auto& d : at) d = d >= 0 ? gazetteer.division(d).parent : -1;
  }

  // No counts tell them apart: the largest, then the first.
  std::uint32_t chosen = pool.front();
  for (const auto i : pool) {
    if (prior.size(candidates[i]) > prior.size(candidates[chosen])) chosen = i;
  }
  out.division = candidates[chosen];
  out.guess.by = "size";
  return out;
}

}  // namespace geoalign::geo
