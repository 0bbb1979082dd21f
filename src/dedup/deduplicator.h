#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dedup/blocking.h"
#include "dedup/clustering.h"
#include "dedup/pair_evidence.h"
#include "index/address_index.h"

namespace geoalign::dedup {

struct DedupOptions {
  // Mean link two clusters need to merge; none: default_threshold(model, rule).
  std::optional<float> threshold;
  MergeRule rule = MergeRule::ExactOrPartial;
  std::size_t neighbours = 20;  // candidates per address from each of the lexical and vector searches
  // Also score every pair (at most kMaxExhaustive addresses) to measure what blocking misses.
  bool exhaustive_check = false;
};

constexpr std::size_t kMaxExhaustive = 20000;

// The threshold for a merge rule that the model's scoring head was trained to (its
// trainer picks the link with the best pairwise F1 out of fold: often below 0.5, as trees
// are surer of their training pairs than of new ones), else 0.5: where the link meets
// the label `score` gives.
float default_threshold(const engine::Engine& model, MergeRule rule);

// Rows reduced to distinct addresses: rows whose normalized texts are equal are one
// address, numbered in the order of their first row.
struct DistinctAddresses {
  std::vector<std::string> texts;
  std::vector<std::uint32_t> address_of_row;
  std::unordered_map<std::string, std::uint32_t> address_of_text;
};
// Throws Error naming the row (1-based) of the first row that cannot be normalized or is
// blank after normalization.
DistinctAddresses distinct_addresses(const engine::Engine& model, std::span<const std::string> rows);
// The numbering step alone, for rows already normalized (geoalign.dask normalizes each
// partition in its own task): rows with equal texts are one address. Throws Error naming
// the row (1-based) of the first blank text.
DistinctAddresses number_addresses(std::vector<std::string> normalized);

// Each distinct address parsed once, the province and city it states, and its unit vector
// (texts.size() * dim floats): what blocking and pair scoring work from.
struct LocatedAddresses {
  std::vector<engine::Address> parsed;
  std::vector<StatedRegion> regions;
  std::vector<float> vectors;
};
LocatedAddresses locate_and_embed(const engine::Engine& model, std::span<const std::string> texts,
                                  const index::BuildProgress& progress = {});

// Average linkage over scored candidate pairs (cluster_entities), scoring the cross pairs
// it needs beyond them with the model; `parsed` holds an address's parse, or an empty
// Address where none was made yet (then it is parsed from `texts` when first needed).
Entities cluster_addresses(const engine::Engine& model, std::span<const std::string> texts,
                           std::vector<engine::Address> parsed, std::span<const PairEvidence> scored, MergeRule rule,
                           float threshold, std::span<const StatedRegion> regions);

struct DedupResult : DistinctAddresses {
  float threshold = 0.5f;  // the one clustering used
  MergeRule rule = MergeRule::ExactOrPartial;
  std::vector<StatedRegion> regions;  // per distinct address: what clustering keeps apart
  std::vector<std::uint32_t> cluster;  // per distinct address: the cluster's smallest address number
  std::vector<std::int64_t> best_match;  // the address it links to most strongly, -1 if none
  std::vector<float> best_link;
  std::vector<PairEvidence> scored;  // every pair scored (candidates, then on demand)
  std::vector<AddressPair> candidates;  // blocking's pairs, sorted
  // With exhaustive_check: the pairs whose link reaches the threshold when every pair is
  // scored, and how many of them blocking proposed; the pairs not scored because their
  // addresses state different provinces or cities (dedup never joins those).
  std::size_t exhaustive_links = 0, exhaustive_links_blocked = 0, exhaustive_region_conflicts = 0;
  std::vector<PairEvidence> exhaustive_missed;  // the linked pairs blocking did not propose
};

// Deduplicates addresses into entities, in stages that a caller spreading the work over
// processes (geoalign.dask) runs one by one, with the same results:
//   distinct_addresses → parse (engine::Engine::prepare) and embed each address once →
//   block (lexical and vector neighbours, minus conflicting regions) → score_pairs in
//   large batches → cluster_entities (average linkage).
// Clusters r's addresses again at `threshold` (r.rule), from r's scored pairs; the cross
// pairs it needs beyond them are scored on demand and kept in r.scored. What a run of
// deduplicate() at that threshold gives, without normalizing, embedding or blocking again.
void cluster_again(const engine::Engine& model, DedupResult& r, float threshold);

DedupResult deduplicate(const engine::Engine& model, std::span<const std::string> rows,
                        const DedupOptions& options, const index::BuildProgress& progress = {});

}  // namespace geoalign::dedup
