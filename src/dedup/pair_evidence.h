#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "geoalign/matcher.h"

namespace geoalign::dedup {

using AddressPair = std::pair<std::uint32_t, std::uint32_t>;  // two distinct address numbers, first < second

// Which labels join two addresses into one entity: exact_match only, or exact_match and
// partial_match (one place named at two granularities, as in the Shenzhen data).
enum class MergeRule { Exact, ExactOrPartial };
MergeRule parse_merge_rule(std::string_view name);  // "exact", "partial"
std::string_view merge_rule_name(MergeRule rule);

// A scored pair, kept compact: dedup keeps tens of millions of them.
struct PairEvidence {
  std::uint32_t a, b;  // distinct addresses
  std::uint32_t label_id;
  float p_not_match, p_partial_match, p_exact_match;

  // A pair's result, kept compact.
  static PairEvidence of(std::uint32_t a, std::uint32_t b, const MatchResult& result);
};

// How strongly a pair links under the rule: the merging class against its strongest rival.
float link_of(const PairEvidence& e, MergeRule rule);

}  // namespace geoalign::dedup
