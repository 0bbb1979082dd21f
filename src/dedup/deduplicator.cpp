#include "dedup/deduplicator.h"

#include <algorithm>

#include "dedup/pair_scoring.h"
#include "runtime/run_in_parallel.h"

namespace geoalign::dedup {

namespace {

// The links exhaustive scoring finds, and how many of them blocking proposed. Pairs whose
// addresses state different provinces or cities are left out, as dedup never joins them
// (clustering refuses them whatever they score): the head links a few of them on a
// shared shop name alone (翡翠超市 in two provinces), a false link and not a lost match.
void check_exhaustively(const engine::Engine& model, std::span<const engine::Address> addresses,
                        std::span<const StatedRegion> regions, MergeRule rule, const index::BuildProgress& progress,
                        DedupResult& r) {
  const std::size_t n = addresses.size();
  if (n > kMaxExhaustive) {
    throw Error("--exhaustive-check scores all pairs: at most " + std::to_string(kMaxExhaustive) + " addresses, not " +
                std::to_string(n));
  }
  progress.begin("exhaustive", n * (n - 1) / 2);
  std::size_t done = 0;
  std::vector<AddressPair> all;
  auto count_links = [&] {
    for (const PairEvidence& e : score_pairs(model, addresses, all)) {
      if (link_of(e, rule) < r.threshold) continue;
      ++r.exhaustive_links;
      if (std::binary_search(r.candidates.begin(), r.candidates.end(), AddressPair{e.a, e.b})) {
        ++r.exhaustive_links_blocked;
      } else {
        r.exhaustive_missed.push_back(e);
      }
    }
    done += all.size();
    if (progress.done) progress.done(done);
    all.clear();
  };
  // Tile by tile, so that the scorer's chunks of pairs name few addresses, each of which
  // it works out once per chunk (engine::Engine::score).
  constexpr std::uint32_t kTile = 64;
  const auto count = static_cast<std::uint32_t>(n);
  for (std::uint32_t ta = 0; ta < count; ta += kTile) {
    for (std::uint32_t tb = ta; tb < count; tb += kTile) {
      for (std::uint32_t a = ta; a < std::min(ta + kTile, count); ++a) {
        for (std::uint32_t b = std::max(tb, a + 1); b < std::min(tb + kTile, count); ++b) {
          if (region_conflict(regions[a], regions[b])) {
            ++r.exhaustive_region_conflicts;
          } else {
            all.emplace_back(a, b);
          }
        }
      }
      if (all.size() >= (1u << 20)) count_links();
    }
  }
  count_links();
}

}  // namespace

DistinctAddresses distinct_addresses(const engine::Engine& model, std::span<const std::string> rows) {
  std::vector<std::string> normalized(rows.size());
  runtime::for_each_named(
      rows.size(), 256, [](std::size_t k) { return "row " + std::to_string(k + 1); },
      [&](std::size_t k) { normalized[k] = model.normalize(rows[k]); });
  return number_addresses(std::move(normalized));
}

DistinctAddresses number_addresses(std::vector<std::string> normalized) {
  DistinctAddresses d;
  d.address_of_row.reserve(normalized.size());
  for (std::size_t k = 0; k < normalized.size(); ++k) {
    if (normalized[k].empty()) throw Error("row " + std::to_string(k + 1) + ": the address is blank after normalization");
    const auto [it, fresh] = d.address_of_text.emplace(normalized[k], static_cast<std::uint32_t>(d.texts.size()));
    if (fresh) d.texts.push_back(std::move(normalized[k]));
    d.address_of_row.push_back(it->second);
  }
  return d;
}

LocatedAddresses locate_and_embed(const engine::Engine& model, std::span<const std::string> texts,
                                  const index::BuildProgress& progress) {
  LocatedAddresses located;
  progress.begin("parse", texts.size());
  located.parsed = model.prepare_all(texts, progress.done);
  located.regions.reserve(texts.size());
  for (const auto& a : located.parsed) located.regions.push_back(stated_region(a.parsed.admin));
  progress.begin("embed", texts.size());
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  located.vectors = model.embed(views, progress.done);
  return located;
}

namespace {

// r's clusters at `threshold` from its scored pairs; `parsed`: the parses made so far
// (empty Addresses where none was made: parsed when clustering first needs them).
void cluster_into(const engine::Engine& model, DedupResult& r, std::vector<engine::Address> parsed,
                  float threshold) {
  Entities entities = cluster_addresses(model, r.texts, std::move(parsed), r.scored, r.rule, threshold, r.regions);
  r.threshold = threshold;
  r.cluster = std::move(entities.cluster);
  r.best_match = std::move(entities.best_match);
  r.best_link = std::move(entities.best_link);
  r.scored.insert(r.scored.end(), entities.on_demand.begin(), entities.on_demand.end());
}

}  // namespace

Entities cluster_addresses(const engine::Engine& model, std::span<const std::string> texts,
                           std::vector<engine::Address> parsed, std::span<const PairEvidence> scored, MergeRule rule,
                           float threshold, std::span<const StatedRegion> regions) {
  if (parsed.size() != texts.size()) throw Error("cluster_addresses: one parse slot per address is needed");
  std::vector<char> ready(texts.size(), 0);
  for (std::size_t k = 0; k < parsed.size(); ++k) ready[k] = !parsed[k].text.empty();
  return cluster_entities(texts.size(), scored, rule, threshold,
                          [&](std::span<const AddressPair> missing) {
                            for (const auto& [a, b] : missing) {
                              for (std::uint32_t k : {a, b}) {
                                if (ready[k]) continue;
                                parsed[k] = model.prepare(texts[k]);
                                ready[k] = 1;
                              }
                            }
                            return score_pairs(model, parsed, missing);
                          },
                          regions);
}

void cluster_again(const engine::Engine& model, DedupResult& r, float threshold) {
  cluster_into(model, r, std::vector<engine::Address>(r.texts.size()), threshold);
}

float default_threshold(const engine::Engine& model, MergeRule rule) {
  return model.link_threshold(merge_rule_name(rule)).value_or(0.5f);
}

DedupResult deduplicate(const engine::Engine& model, std::span<const std::string> rows, const DedupOptions& options,
                        const index::BuildProgress& progress) {
  DedupResult r;
  r.threshold = options.threshold.value_or(default_threshold(model, options.rule));
  progress.begin("normalize", rows.size());
  static_cast<DistinctAddresses&>(r) = distinct_addresses(model, rows);

  LocatedAddresses located = locate_and_embed(model, r.texts, progress);
  r.candidates = block(r.texts, located.regions, located.vectors, options.neighbours, progress);

  progress.begin("score", r.candidates.size());
  r.scored = score_pairs(model, located.parsed, r.candidates, progress.done);
  if (options.exhaustive_check) check_exhaustively(model, located.parsed, located.regions, options.rule, progress, r);

  progress.begin("cluster", 0);
  r.rule = options.rule;
  r.regions = std::move(located.regions);
  cluster_into(model, r, std::move(located.parsed), r.threshold);
  return r;
}

}  // namespace geoalign::dedup
