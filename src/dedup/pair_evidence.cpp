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

PairEvidence PairEvidence::of_both_orders(std::uint32_t a, std::uint32_t b, const MatchResult& ab, const MatchResult& ba) {
  PairEvidence e{a, b, static_cast<std::uint32_t>(ab.label_id), 0.5f * (ab.p_not_match + ba.p_not_match),
                 0.5f * (ab.p_partial_match + ba.p_partial_match), 0.5f * (ab.p_exact_match + ba.p_exact_match)};
  float best = -1.0f;
  for (std::size_t id = 0; id < std::min(ab.probabilities.size(), ba.probabilities.size()); ++id) {
    const float mean = 0.5f * (ab.probabilities[id] + ba.probabilities[id]);
    if (mean > best) {
      best = mean;
      e.label_id = static_cast<std::uint32_t>(id);
    }
  }
  return e;
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
