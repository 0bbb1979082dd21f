#include "index/searcher.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "runtime/run_in_parallel.h"
#include "text/excerpt.h"

namespace geoalign::index {

namespace {
// Reciprocal-rank fusion's damping constant (Cormack et al. 2009): ranks 1 and 2 differ
// little, so one list's order does not drown the other's.
constexpr float kFusionK = 60.0f;

// The query's own city (its code's first 4 digits), when the address names the city or a
// district in it. One completed from a town or street name alone is a guess (北京建国路
// reads 北京 as 广州's 北京街道), too weak to leave every other city's records out for.
std::string named_city(const AdminChain& admin) {
  const bool named = (admin.city && !admin.city->inferred) || (admin.district && !admin.district->inferred);
  return named && admin.adcode.size() >= 4 ? admin.adcode.substr(0, 4) : "";
}
}  // namespace

namespace {
// A reading as AdminChain::candidates writes one: "code name/name/...".
struct Region {
  std::string code, reading;
};

// The readings of an ambiguous chain that are regions: a province, city or district
// (codes of at most 6 digits). 北京市 alone also reads as 北京街道, a town in Guangzhou,
// which no one means by a region.
std::vector<Region> region_readings(const AdminChain& admin) {
  std::vector<Region> out;
  for (const auto& c : admin.candidates) {
    std::string code = c.substr(0, c.find(' '));
    if (code.size() <= 6) out.push_back({std::move(code), c});
  }
  return out;
}

// A name by itself is read as the divisions it names (a bare 通州 is 北京's or 南通's
// district, where the tagger, reading it as an address, finds 通州镇 in Guizhou). Of a
// province and the city it names too (北京), the province covers the other.
std::vector<Region> named_divisions(const AddressParser& parser, std::string_view name) {
  std::vector<Region> found;
  for (const auto& chain : parser.divisions_named(name)) {
    std::string names;
    for (const auto& d : chain) names += (names.empty() ? "" : "/") + d.name;
    found.push_back({chain.back().code, chain.back().code + " " + names});
  }
  std::ranges::sort(found, {}, &Region::code);
  std::vector<Region> coarsest;
  for (auto& r : found) {
    if (coarsest.empty() || !r.code.starts_with(coarsest.back().code)) coarsest.push_back(std::move(r));
  }
  return coarsest;
}

// A former division split between several (江干区: 上城区 or 钱塘区) leaves the chain above
// them; as a region that would be the whole city, so its successors are the readings.
std::vector<Region> split_successors(const AdminChain& admin) {
  std::vector<Region> out;
  for (const auto& h : admin.historical) {
    if (h.now_codes.size() < 2 || admin.adcode.size() >= h.now_codes[0].size()) continue;
    for (std::size_t i = 0; i < h.now.size(); ++i) out.push_back({h.now_codes[i], h.now_codes[i] + " " + h.now[i]});
  }
  return out;
}

// Codes are 2 digits per province, city and district level, then 3 for the town.
std::string chain_code(const AdminChain& admin) {
  const std::size_t digits = admin.town ? admin.adcode.size() : admin.district ? 6 : admin.city ? 4 : 2;
  return admin.adcode.substr(0, std::min(digits, admin.adcode.size()));
}
}  // namespace

Searcher::Searcher(const AddressIndex& index, const engine::Engine& model) : index_(index), model_(model) {}

std::string Searcher::region_code(std::string_view name) const {
  const std::string normalized = model_.normalize(name);
  std::vector<Region> regions = named_divisions(model_.parser(), normalized);
  std::optional<AdminChain> admin;
  std::string hint = "name its province or city too";
  if (regions.empty()) {
    admin = model_.prepare(normalized).parsed.admin;
    regions = admin->ambiguous ? region_readings(*admin) : split_successors(*admin);
    if (!admin->ambiguous) hint = "it was split between these; name the one meant";
  }
  if (regions.size() == 1) return regions[0].code;
  if (regions.size() > 1) {
    std::string all;
    for (const auto& r : regions) all += (all.empty() ? "" : "; ") + r.reading;
    throw Error("region \"" + text::excerpt(name) + "\" is ambiguous (" + all + "); " + hint);
  }
  if (admin->ambiguous || admin->adcode.empty())
    throw Error("region \"" + text::excerpt(name) + "\" is not a known province, city or district");
  return chain_code(*admin);
}

engine::Address Searcher::prepare(std::string_view query) const {
  std::string normalized = model_.normalize(query);
  if (normalized.empty()) throw Error("the address is blank after normalization");
  return model_.prepare(normalized);
}

std::vector<std::vector<SearchHit>> Searcher::search(std::span<const std::string> queries, const SearchOptions& options) const {
  const std::size_t n = queries.size();
  const auto query_name = [](std::size_t k) { return "query " + std::to_string(k + 1); };
  std::vector<engine::Address> prepared(n);
  runtime::for_each_named(n, 4, query_name, [&](std::size_t k) { prepared[k] = prepare(queries[k]); });
  std::vector<std::string_view> texts;
  for (const auto& a : prepared) texts.push_back(a.text);
  const std::vector<float> vectors = model_.embed(texts);
  const std::size_t dim = model_.dim();
  std::vector<std::vector<SearchHit>> results(n);
  runtime::for_each_named(n, 1, query_name, [&](std::size_t k) {
    results[k] = search_one(prepared[k], {vectors.data() + k * dim, dim}, options);
  });
  return results;
}

std::vector<SearchHit> Searcher::search_one(const engine::Address& query, std::span<const float> vector,
                                            const SearchOptions& options) const {
  std::string region = options.region;
  const bool from_query = options.region_from_query && region.empty();
  if (from_query) region = named_city(query.parsed.admin);
  std::optional<RecordSet> in_region;
  if (!region.empty()) in_region = index_.records_in(region, from_query);
  const std::size_t pool = std::max({options.candidates, options.rerank, options.k});
  const std::vector<Hit> lexical =
      index_.lexical().search(query.text, pool, in_region ? in_region->contains : RecordFilter{});
  const std::vector<Hit> dense =
      index_.vectors().search(vector, pool, std::max<std::size_t>(pool, 64), in_region ? &*in_region : nullptr);
  std::unordered_map<std::uint32_t, float> fused;
  for (const auto* list : {&lexical, &dense}) {
    for (std::size_t rank = 0; rank < list->size(); ++rank) fused[(*list)[rank].record] += 1.0f / (kFusionK + static_cast<float>(rank + 1));
  }
  std::vector<SearchHit> hits;
  hits.reserve(fused.size());
  for (const auto& [record, score] : fused) hits.push_back({record, score, std::nullopt});
  const auto better = [](const SearchHit& a, const SearchHit& b) { return a.score != b.score ? a.score > b.score : a.record < b.record; };
  std::sort(hits.begin(), hits.end(), better);
  const std::size_t reranked = std::min(options.rerank, hits.size());
  if (reranked > 0) {
    std::vector<engine::Address> candidates;
    candidates.reserve(reranked);
    for (std::size_t k = 0; k < reranked; ++k) candidates.push_back(index_.address(hits[k].record, model_));
    std::vector<std::pair<const engine::Address*, const engine::Address*>> pairs;
    for (const auto& c : candidates) pairs.emplace_back(&query, &c);
    // A record whose normalized text is the query's is exact_match with P = 1: the pair
    // scorer's own rule (runtime::PairScorer::decide), not search's.
    std::vector<MatchResult> matches = model_.score(pairs, options.reading);
    for (std::size_t k = 0; k < reranked; ++k) {
      // Lookup asks for the record that is the query's place: P(exact_match) ranks those
      // above coarser or finer partial matches (a district for a street address).
      hits[k].score = matches[k].p_exact_match;
      hits[k].match = std::move(matches[k]);
    }
    // Reranked hits come first, by that probability; the rest keep the fused order.
    // Of equal scores, the query's own text first.
    const auto own_text = [&](const SearchHit& h) { return index_.normalized(h.record) == query.text; };
    std::stable_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(reranked),
                     [&](const SearchHit& a, const SearchHit& b) {
                       return a.score != b.score ? a.score > b.score : own_text(a) && !own_text(b);
                     });
  }
  if (hits.size() > options.k) hits.resize(options.k);
  return hits;
}

}  // namespace geoalign::index
