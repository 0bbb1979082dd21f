#include "dedup/pair_evidence.h"

#include <algorithm>
#include <string>

#include "geoalign/error.h"

namespace geoalign::dedup {

MergeRule parse_merge_rule(std::string_view name) {
  if (name == "exact") return MergeRule::Exact;
  if (name == "partial") return MergeRule::ExactOrPartial;
  throw Error("unknown merge rule \"" + std::string(name) + "\" (exact, partial)");
}

std::string_view merge_rule_name(MergeRule rule) { return rule == MergeRule::Exact ? "exact" : "partial"; }

PairEvidence PairEvidence::of(std::uint32_t a, std::uint32_t b, const MatchResult& result) {
  return {a, b, static_cast<std::uint32_t>(result.label_id), result.p_not_match, result.p_partial_match,
          result.p_exact_match};
}

float link_of(const PairEvidence& m, MergeRule rule) {
  // How the merging class fares against its strongest rival: at 0.5 exactly where the
  // scorer's label changes, so at threshold 0.5 a pair links when `score` would label it
  // a match (the head's class offsets are in its probabilities).
  const float merging = rule == MergeRule::Exact ? m.p_exact_match : std::max(m.p_exact_match, m.p_partial_match);
  const float rival = rule == MergeRule::Exact ? std::max(m.p_not_match, m.p_partial_match) : m.p_not_match;
  return merging + rival > 0 ? merging / (merging + rival) : 0.0f;
}

}  // namespace geoalign::dedup
