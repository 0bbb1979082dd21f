#include "geo/admin_resolver.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <tuple>

#include "geo/admin_guess.h"
#include "text/utf8.h"

namespace geoalign::geo {

namespace {

constexpr std::size_t kMaxCandidatesListed = 10;
// Admin elements read for the chain. Real addresses have at most eight (of 43,000 seen,
// repeated chains included); a line of pasted addresses or a list of names can have
// thousands, and weighing every candidate against every element would then take minutes.
constexpr std::size_t kMaxAdminElementsRead = 32;

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

// A municipality's city level is a placeholder (市辖区): people call it by the
// municipality's name, so naming the one names the other.
std::int32_t named_as(std::int32_t division, const Gazetteer& g) {
  const Division& d = g.division(division);
  return d.placeholder && d.parent >= 0 ? d.parent : division;
}

using SuccessorOf = std::pair<std::int32_t, std::int32_t>;  // (current successor, former division)

// What one admin element could name: current divisions, and the current successors of
// former divisions of that name.
struct Reading {
  std::vector<std::int32_t> current;  // sorted
  // Divisions at the tagged level named by the element's stem with another suffix: towns
  // become streets (九堡镇: 九堡街道), and people give a county or a prefecture its
  // everyday suffix (景宁县: 景宁畲族自治县; 海宁区: 海宁市; 红河州: 红河哈尼族彝族自治州).
  // They count as current names, below the exact ones. Sorted.
  std::vector<std::int32_t> renamed;
  std::vector<SuccessorOf> former;   // sorted
  std::vector<SuccessorOf> partial;  // partial successors (sorted): explain, never candidates
  AdminLevel tagged = AdminLevel::Prov;
  // 1 / the number of places the element names: how much explaining it is worth
  // where readings explain different elements (江干区, one former district, against
  // 高桥镇, ten towns).
  double specificity = 0;
  std::size_t element = 0;  // index into the elements
};

// How a candidate's chain explains a reading.
struct Explanation {
  bool any = false;
  bool current = false;   // through a current name
  bool at_level = false;  // by a division (or former division) at the level the element was tagged at
  bool exact = false;     // by the name as written (not a town's renamed stem)
  std::int32_t former = -1;
};

const SuccessorOf* find_successor(const std::vector<SuccessorOf>& list, std::int32_t d) {
  const auto it = std::lower_bound(list.begin(), list.end(), SuccessorOf{d, -1});
  return it != list.end() && it->first == d ? &*it : nullptr;
}

Explanation explain(const std::vector<std::int32_t>& chain, const Reading& r, const Gazetteer& g,
                    const HistoricalDivisions* historical) {
  for (const auto d : chain) {
    if (std::binary_search(r.current.begin(), r.current.end(), d)) return {true, true, g.division(d).level == r.tagged, true, -1};
  }
  for (const auto d : chain) {
    if (std::binary_search(r.renamed.begin(), r.renamed.end(), d)) return {true, true, g.division(d).level == r.tagged, false, -1};
  }
  for (const auto* list : {&r.former, &r.partial}) {
    for (const auto d : chain) {
      if (const SuccessorOf* s = find_successor(*list, d)) {
        return {true, false, historical->division(s->second).level == r.tagged, true, s->second};
      }
    }
  }
  return {};
}

// Divisions at `level` that the element's stem names under another suffix, not already
// among `current`.
std::vector<std::int32_t> renamed_divisions(const std::u32string& name, AdminLevel level,
                                            const std::vector<std::int32_t>& current, const Gazetteer& g) {
  std::vector<std::int32_t> out;
  for (const auto& stem : short_names(name, level)) {
    for (const auto d : g.lookup(stem)) {
      if (g.division(d).level == level && !std::binary_search(current.begin(), current.end(), d)) {
        out.push_back(d);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// 景宁县 for 景宁畲族自治县, 鄂伦春旗 for 鄂伦春自治旗: an autonomous county's name without
// its nationalities and 自治, as people and signs write it.
bool is_everyday_name(std::string_view written, std::string_view official) {
  return (written.ends_with("县") && official.ends_with("自治县")) ||
         (written.ends_with("旗") && official.ends_with("自治旗"));
}

// How many places `divisions` (sorted) name, a division inside another of them counting
// with it: 吉林 is the province 吉林省 and the city 吉林市 in it, one region. Long lists
// (新村: hundreds of towns) are counted as they are; their share is near nothing anyway.
std::size_t distinct_places(const std::vector<std::int32_t>& divisions, const Gazetteer& g) {
  constexpr std::size_t kMaxCompared = 16;
  if (divisions.size() > kMaxCompared) return divisions.size();
  std::size_t places = 0;
  for (const auto d : divisions) {
    places += std::none_of(divisions.begin(), divisions.end(),
                           [&](std::int32_t other) { return other != d && g.is_ancestor_or_self(other, d); });
  }
  return places;
}

// Whether `d` holds the former division, wholly or in part.
bool holds_part(const FormerDivision& former, std::int32_t d) {
  return std::find(former.successors.begin(), former.successors.end(), d) != former.successors.end() ||
         std::find(former.partial_successors.begin(), former.partial_successors.end(), d) !=
             former.partial_successors.end();
}

}  // namespace

AdminChain resolve_admin(const std::vector<AddressElement>& elements, const Gazetteer& gazetteer,
                         const HistoricalDivisions* historical, const DivisionPrior* guess) {
  if (historical && historical->empty()) historical = nullptr;
  std::vector<Reading> readings;
  std::size_t admin_elements = 0;
  for (std::size_t element = 0; element < elements.size(); ++element) {
    const AddressElement& e = elements[element];
    const auto level = admin_level_of_tag(e.tag);
    if (!level) continue;
    if (++admin_elements > kMaxAdminElementsRead) break;
    const std::u32string name = text::decode_utf8(e.text);
    Reading r;
    r.tagged = *level;
    r.element = element;
    const auto found = gazetteer.lookup(name);
    r.current.assign(found.begin(), found.end());
    std::sort(r.current.begin(), r.current.end());
    std::size_t formers = 0;
    if (historical) {
      for (const auto f : historical->lookup(name)) {
        const FormerDivision& former = historical->division(f);
        // The division itself, read as it was: it adds the counties that took its towns,
        // which explain the element only beside such a town, and no place of its own.
        if (former.earlier_extent) {
          for (const auto s : former.partial_successors) r.partial.emplace_back(s, f);
          continue;
        }
        // Never over a current division of the same name in the same parent (萧山: 萧山区,
        // not 萧山市), nor inside one (绍兴: the city 绍兴市, not 绍兴县 in it, now 柯桥区).
        const bool shadowed = std::any_of(r.current.begin(), r.current.end(), [&](std::int32_t d) {
          return (former.parent >= 0 && gazetteer.division(d).parent == former.parent) ||
                 std::any_of(former.successors.begin(), former.successors.end(),
                             [&](std::int32_t s) { return gazetteer.is_ancestor_or_self(d, s); });
        });
        if (shadowed) continue;
        ++formers;
        for (const auto s : former.successors) r.former.emplace_back(s, f);
        for (const auto s : former.partial_successors) r.partial.emplace_back(s, f);
      }
      std::sort(r.former.begin(), r.former.end());
      std::sort(r.partial.begin(), r.partial.end());
    }
    // A city's or district's other suffix is read only where its name names nothing as
    // written (朝阳区 must not also read as 朝阳县 in Liaoning); a town's always is.
    const bool unnamed = r.current.empty() && formers == 0;
    if (r.tagged == AdminLevel::Town ||
        (unnamed && (r.tagged == AdminLevel::City || r.tagged == AdminLevel::District))) {
      r.renamed = renamed_divisions(name, r.tagged, r.current, gazetteer);
    }
    // Renamed towns are second choices: they dilute only a name that has no exact match.
    // Towns do not dilute a name tagged province or city that also names a division above
    // them: streets are named after big cities (南京街道 in Jilin), and must not halve 南京
    // against a district named beside it (南京同仁耳鼻喉医院: 同仁市 in Qinghai). They still
    // explain the element. A district-tagged name keeps its towns: 石鼓区 and the towns
    // 石鼓镇 are as likely a reading of 石鼓.
    std::vector<std::int32_t> above_towns;
    if (r.tagged == AdminLevel::Prov || r.tagged == AdminLevel::City) {
      for (const auto d : r.current) {
        if (gazetteer.division(d).level != AdminLevel::Town) above_towns.push_back(d);
      }
    }
    const std::size_t exact = distinct_places(above_towns.empty() ? r.current : above_towns, gazetteer) + formers;
    const std::size_t places = exact ? exact : distinct_places(r.renamed, gazetteer);
    if (places == 0) continue;
    r.specificity = 1.0 / static_cast<double>(places);
    readings.push_back(std::move(r));
  }
  AdminChain admin;
  if (readings.empty()) return admin;

  // Elements the candidate explains; then their specificity, summed (rounded to
  // millionths once, so that equal sums compare equal); then how many of them by current
  // names; then how many at the level they were tagged at: "朝阳区" tagged district is the
  // district, not the street 朝阳区街道; then how many by the names as written. Without
  // former or renamed names the third and fifth counts equal the first.
  using Support = std::tuple<std::size_t, std::int64_t, std::size_t, std::size_t, std::size_t>;
  auto support = [&](std::int32_t candidate) {
    const auto chain = gazetteer.chain(candidate);
    Support points{0, 0, 0, 0, 0};
    double specificity = 0;
    for (const auto& r : readings) {
      const Explanation x = explain(chain, r, gazetteer, historical);
      if (!x.any) continue;
      std::get<0>(points) += 1;
      specificity += r.specificity;
      std::get<2>(points) += x.current;
      std::get<3>(points) += x.at_level;
      std::get<4>(points) += x.exact;
    }
    std::get<1>(points) = std::llround(specificity * 1e6);
    return points;
  };

  std::vector<std::int32_t> candidates;
  // A district read under another suffix is taken only beside another element it
  // explains: alone, 安平区 (台湾台南市安平区, Taiwan being outside the gazetteer) would be
  // 安平县 in Hebei, 城西新区 the 城西区 of Xining. An autonomous county's everyday name
  // (景宁县 for 景宁畲族自治县) is certain alone.
  std::vector<std::int32_t> renamed_districts;
  for (const auto& r : readings) {
    candidates.insert(candidates.end(), r.current.begin(), r.current.end());
    for (const auto d : r.renamed) {
      const bool doubtful = r.tagged == AdminLevel::District &&
                            !is_everyday_name(elements[r.element].text, gazetteer.division(d).name);
      (doubtful ? renamed_districts : candidates).push_back(d);
    }
    for (const auto& [successor, former] : r.former) candidates.push_back(successor);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (const auto c : renamed_districts) {
    if (!std::binary_search(candidates.begin(), candidates.end(), c) && std::get<0>(support(c)) >= 2) {
      candidates.insert(std::upper_bound(candidates.begin(), candidates.end(), c), c);
    }
  }
  if (candidates.empty()) return admin;
  Support best_support{0, 0, 0, 0, 0};
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

  // The former division each reading was explained by, where every one of `chains`
  // explains it through the same one (-1 elsewhere).
  std::vector<std::int32_t> former_of(readings.size(), -1);
  auto find_former = [&](const std::vector<std::vector<std::int32_t>>& of_chains) {
    for (std::size_t r = 0; historical && r < readings.size(); ++r) {
      std::int32_t shared_former = -2;
      for (const auto& chain : of_chains) {
        const std::int32_t f = explain(chain, readings[r], gazetteer, historical).former;
        shared_former = shared_former == -2 || shared_former == f ? f : -1;
      }
      former_of[r] = std::max(shared_former, std::int32_t{-1});
    }
  };
  std::vector<std::vector<std::int32_t>> chains;
  for (const auto c : deepest) chains.push_back(gazetteer.chain(c));
  find_former(chains);

  // Elements that no best reading explains: the address contradicts itself there. Not
  // towns: a town name outside the reading is far more often another of the many places of
  // that name (白沙, 金牛), or a town merged away (the gazetteer lists today's towns only),
  // than a contradiction.
  auto find_conflicts = [&](const std::vector<std::vector<std::int32_t>>& of_chains) {
    admin.conflicting.clear();
    for (const auto& r : readings) {
      if (r.tagged == AdminLevel::Town) continue;
      const bool explained = std::any_of(of_chains.begin(), of_chains.end(), [&](const std::vector<std::int32_t>& chain) {
        return explain(chain, r, gazetteer, historical).any;
      });
      if (!explained) admin.conflicting.push_back(elements[r.element]);
    }
  };
  find_conflicts(chains);

  // The levels every reading agrees on.
  std::vector<std::int32_t> shared = chains.front();
  for (const auto& chain : chains) {
    std::size_t common = 0;
    while (common < shared.size() && common < chain.size() && shared[common] == chain[common]) ++common;
    shared.resize(common);
  }
  // Candidates that differ only in which successor of one former division they are (江干区:
  // 上城区 or 钱塘区) are one reading with its level open, not an ambiguity: their chains
  // agree above the successors.
  auto diverge_at_successors = [&](std::int32_t f) {
    const auto& successors = historical->division(f).successors;
    return std::all_of(chains.begin(), chains.end(), [&](const std::vector<std::int32_t>& chain) {
      const auto at = std::find_if(chain.begin(), chain.end(), [&](std::int32_t d) {
        return std::find(successors.begin(), successors.end(), d) != successors.end();
      });
      // At the split itself: a successor above it, shared by every chain (吕梁地区: 吕梁市),
      // leaves the tie below it (two towns 三交镇) a real ambiguity.
      return at != chain.end() && static_cast<std::size_t>(at - chain.begin()) == shared.size();
    });
  };
  const bool split_former = std::any_of(former_of.begin(), former_of.end(),
                                        [&](std::int32_t f) { return f >= 0 && diverge_at_successors(f); });
  if (deepest.size() > 1 && !split_former) {
    admin.ambiguous = true;
    for (std::size_t i = 0; i < deepest.size() && i < kMaxCandidatesListed; ++i) {
      admin.candidates.push_back(describe(deepest[i], gazetteer));
    }
    if (guess) {
      // The most likely reading fills the levels, its own former names noted as for an
      // unambiguous chain.
      // Every division the admin elements name is a candidate.
      GuessedReading guessed = guess_reading(deepest, elements, candidates, gazetteer, *guess);
      guessed.guess.reading = describe(guessed.division, gazetteer);
      std::vector<std::int32_t> chain = gazetteer.chain(guessed.division);
      for (std::size_t i = shared.size(); i < chain.size(); ++i) {
        guessed.guess.filled.push_back(admin_level_name(gazetteer.division(chain[i]).level));
      }
      // The list is capped; the reading chosen is always on it (城关镇 alone has hundreds).
      auto& listed = admin.candidates;
      if (std::find(listed.begin(), listed.end(), guessed.guess.reading) == listed.end()) {
        listed.back() = guessed.guess.reading;
      }
      admin.guess = std::move(guessed.guess);
      // The guess overrules what only another reading explained (福建省 beside 南京市鼓楼区,
      // read as Nanjing's 鼓楼区): say so, as for an unambiguous chain.
      find_former({chain});
      find_conflicts({chain});
      shared = std::move(chain);
    }
  }

  // Named by the address: by a current name, or by the former name its reading was
  // explained by (江东区 names 鄞州区; 巢湖市 read as the county-level city does not name
  // 合肥市, though the former prefecture of that name is partly in it).
  auto named = [&](std::int32_t d) {
    for (std::size_t r = 0; r < readings.size(); ++r) {
      if (std::binary_search(readings[r].current.begin(), readings[r].current.end(), d)) return true;
      if (std::binary_search(readings[r].renamed.begin(), readings[r].renamed.end(), d)) return true;
      if (former_of[r] >= 0 && holds_part(historical->division(former_of[r]), d)) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < shared.size(); ++i) {
    const Division& d = gazetteer.division(shared[i]);
    const std::int32_t as = named_as(shared[i], gazetteer);
    AdminDivision out{gazetteer.division(as).name, d.code, !(named(as) || named(shared[i]))};
    switch (d.level) {
      case AdminLevel::Prov: admin.prov = out; break;
      case AdminLevel::City: admin.city = out; break;
      case AdminLevel::District: admin.district = out; break;
      case AdminLevel::Town: admin.town = out; break;
    }
  }
  if (!shared.empty()) admin.adcode = gazetteer.division(shared.back()).code;
  // A municipality named alone (北京市) names its city too, as it does before a district
  // (北京市朝阳区): the city level is the municipality itself. The adcode stays the
  // province's: the address names nothing finer.
  if (shared.size() == 1 && admin.prov && !admin.city) {
    if (const std::int32_t city = gazetteer.municipal_city(shared[0]); city >= 0) {
      admin.city = AdminDivision{admin.prov->name, gazetteer.division(city).code, admin.prov->inferred};
    }
  }

  std::vector<std::int32_t> noted;
  for (const auto f : former_of) {
    if (f >= 0 && std::find(noted.begin(), noted.end(), f) == noted.end()) noted.push_back(f);
  }
  std::stable_sort(noted.begin(), noted.end(), [&](std::int32_t a, std::int32_t b) {
    return historical->division(a).level < historical->division(b).level;
  });
  for (const auto f : noted) {
    const FormerDivision& former = historical->division(f);
    HistoricalName h{admin_level_name(former.level), former.name, former.code, former.until_year, {}, {}, {}, {}};
    for (const auto s : former.successors) {
      h.now.push_back(gazetteer.division(named_as(s, gazetteer)).name);
      h.now_codes.push_back(gazetteer.division(s).code);
    }
    for (const auto s : former.partial_successors) {
      h.partly.push_back(gazetteer.division(named_as(s, gazetteer)).name);
      h.partly_codes.push_back(gazetteer.division(s).code);
    }
    admin.historical.push_back(std::move(h));
  }
  return admin;
}

}  // namespace geoalign::geo
