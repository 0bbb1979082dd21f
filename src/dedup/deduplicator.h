#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dedup/clustering.h"
#include "index/address_index.h"

namespace geoalign::dedup {

// Which labels join two addresses into one entity: exact_match only, or exact_match and
// partial_match (one place named at two granularities, as in the Shenzhen data).
enum class MergeRule { Exact, ExactOrPartial };
MergeRule parse_merge_rule(std::string_view name);  // "exact", "partial"

struct DedupOptions {
  float threshold = 0.5f;  // mean link two clusters need to merge
  MergeRule rule = MergeRule::ExactOrPartial;
  std::size_t neighbours = 20;  // candidates per address from each of the lexical and vector searches
  // Also score every pair (at most kMaxExhaustive addresses) to measure what blocking misses.
  bool exhaustive_check = false;
};

constexpr std::size_t kMaxExhaustive = 20000;

// A scored pair, kept compact: dedup keeps tens of millions of them.
struct PairEvidence {
  std::uint32_t a, b;  // distinct addresses
  std::uint32_t label_id;
  float p_not_match, p_partial_match, p_exact_match;

  static PairEvidence of(std::uint32_t a, std::uint32_t b, const MatchResult& m) {
    return {a, b, static_cast<std::uint32_t>(m.label_id), m.p_not_match, m.p_partial_match, m.p_exact_match};
  }
};

struct DedupResult {
  // Per distinct normalized address (rows with the same normalized text are one).
  std::vector<std::string> texts;
  std::vector<std::uint32_t> cluster;  // the cluster's smallest address number
  std::vector<std::int64_t> best_match;  // the address it links to most strongly, -1 if none
  std::vector<float> best_link;
  std::vector<PairEvidence> scored;  // every pair scored (candidates and on demand)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> candidates;  // blocking's pairs, a < b
  // With exhaustive_check: the pairs whose link reaches the threshold when every pair is
  // scored, and how many of them blocking proposed.
  std::size_t exhaustive_links = 0, exhaustive_links_blocked = 0;
  // Per input row: its distinct address.
  std::vector<std::uint32_t> address_of_row;
  std::unordered_map<std::string, std::uint32_t> address_of_text;
};

// Deduplicates addresses into entities: normalize (identical texts are one address),
// parse each once, embed, block (each address's lexical and vector neighbours, minus
// pairs whose provinces or cities differ), score candidate pairs with the model's pair
// scorer in large batches, then average-linkage clustering.
DedupResult deduplicate(const index::AddressModel& model, const std::vector<std::string>& rows,
                        const DedupOptions& options, const index::BuildProgress& progress = {});

float link_of(const PairEvidence& e, MergeRule rule);

}  // namespace geoalign::dedup
