#include "index/searcher.h"

#include <algorithm>
#include <unordered_map>

#include "backend/cpu/parallel.h"

namespace geoalign::index {

namespace {
// Reciprocal-rank fusion's damping constant (Cormack et al. 2009): ranks 1 and 2 differ
// little, so one list's order does not drown the other's.
constexpr float kFusionK = 60.0f;

std::string city_prefix(const std::string& adcode) { return adcode.size() >= 4 ? adcode.substr(0, 4) : adcode; }
}  // namespace

std::string Searcher::region_code(std::string_view name) const {
  const AdminChain admin = model_.prepare(model_.normalize(name)).parsed.admin;
  if (admin.ambiguous) {
    // 北京市 alone also reads as 北京街道, a town in Guangzhou; a region is a province,
    // city or district (codes of at most 6 digits), so only such readings count.
    std::vector<std::string> regions;
    for (const auto& c : admin.candidates) {
      const std::string code = c.substr(0, c.find(' '));
      if (code.size() <= 6) regions.push_back(code);
    }
    if (regions.size() == 1) return regions[0];
    std::string all;
    for (const auto& c : admin.candidates) all += (all.empty() ? "" : "; ") + c;
    throw Error("region \"" + std::string(name) + "\" is ambiguous (" + all + "); name its province or city too");
  }
  if (admin.adcode.empty()) throw Error("region \"" + std::string(name) + "\" is not a known province, city or district");
  // Codes are 2 digits per province, city and district level, then 3 for the town.
  const std::size_t digits = admin.town ? admin.adcode.size() : admin.district ? 6 : admin.city ? 4 : 2;
  return admin.adcode.substr(0, std::min(digits, admin.adcode.size()));
}

Address Searcher::prepare(std::string_view query) const { return model_.prepare(model_.normalize(query)); }

std::vector<std::vector<SearchHit>> Searcher::search(std::span<const std::string> queries, const SearchOptions& options) const {
  const std::size_t n = queries.size();
  std::vector<Address> prepared(n);
  std::vector<std::optional<std::string>> errors(n);
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 4, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      prepared[k] = prepare(queries[k]);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  });
  for (std::size_t k = 0; k < n; ++k) {
    if (errors[k]) throw Error("query " + std::to_string(k + 1) + ": " + *errors[k]);
  }
  std::vector<std::string_view> texts;
  for (const auto& a : prepared) texts.push_back(a.text);
  const std::vector<float> vectors = model_.embed(texts);
  const std::size_t dim = model_.dim();
  std::vector<std::vector<SearchHit>> results(n);
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 1, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      results[k] = search_one(prepared[k], {vectors.data() + k * dim, dim}, options);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  });
  for (std::size_t k = 0; k < n; ++k) {
    if (errors[k]) throw Error("query " + std::to_string(k + 1) + ": " + *errors[k]);
  }
  return results;
}

std::vector<SearchHit> Searcher::search_one(const Address& query, std::span<const float> vector,
                                            const SearchOptions& options) const {
  std::string region = options.region;
  if (options.region_from_query && region.empty()) region = city_prefix(query.parsed.admin.adcode);
  RecordFilter filter;
  if (!region.empty()) filter = [&](std::uint32_t r) { return index_.adcode(r).starts_with(region); };
  const std::size_t pool = std::max({options.candidates, options.rerank, options.k});
  const std::vector<Hit> lexical = index_.lexical().search(query.text, pool, filter);
  const std::vector<Hit> dense = index_.vectors().search(vector, pool, std::max<std::size_t>(pool, 64), filter);
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
    std::vector<Address> candidates;
    candidates.reserve(reranked);
    for (std::size_t k = 0; k < reranked; ++k) candidates.push_back(index_.address(hits[k].record, model_));
    std::vector<std::pair<const Address*, const Address*>> pairs;
    for (const auto& c : candidates) pairs.emplace_back(&query, &c);
    std::vector<MatchResult> matches = model_.score(pairs);
    for (std::size_t k = 0; k < reranked; ++k) {
      // Lookup asks for the record that is the query's place: P(exact_match) ranks those
      // above coarser or finer partial matches (a district for a street address).
      hits[k].score = matches[k].p_exact_match;
      hits[k].match = std::move(matches[k]);
    }
    // Reranked hits come first, by that probability; the rest keep the fused order.
    std::stable_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(reranked),
                     [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
  }
  if (hits.size() > options.k) hits.resize(options.k);
  return hits;
}

}  // namespace geoalign::index
