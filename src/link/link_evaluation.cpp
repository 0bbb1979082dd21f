#include "link/link_evaluation.h"

#include <map>
#include <set>
#include <unordered_set>
#include <utility>

namespace geoalign::link {

LinkEvaluation evaluate_links(std::span<const std::vector<ProposedLink>> links, std::span<const std::string> left_texts,
                              std::span<const std::string> right_texts,
                              const std::vector<dedup::LabelledPair>& labels, float min_p_exact) {
  const std::unordered_set<std::string> left(left_texts.begin(), left_texts.end());
  const std::unordered_set<std::string> right(right_texts.begin(), right_texts.end());
  // Each labelled pair as (left text, right text): true for one place, false for two.
  std::map<std::pair<std::string, std::string>, bool> labelled;
  LinkEvaluation e;
  for (const auto& l : labels) {
    if (left.count(l.a) && right.count(l.b)) {
      labelled.emplace(std::pair{l.a, l.b}, l.match);
    } else if (left.count(l.b) && right.count(l.a)) {
      labelled.emplace(std::pair{l.b, l.a}, l.match);
    } else {
      ++e.pairs.not_in_input;
    }
  }
  std::set<std::string> has_a_match;  // left texts
  for (const auto& [pair, match] : labelled) {
    if (match) has_a_match.insert(pair.first);
  }
  std::set<std::pair<std::string, std::string>> proposed;
  for (std::size_t i = 0; i < links.size(); ++i) {
    bool best = true;
    for (const auto& link : links[i]) {
      if (link.p_exact < min_p_exact) continue;
      proposed.emplace(link.left, link.right);
      if (best && has_a_match.count(link.left)) {
        const auto it = labelled.find({link.left, link.right});
        e.best_is_a_match += it != labelled.end() && it->second;
      }
      best = false;
    }
    if (i < left_texts.size() && has_a_match.count(left_texts[i])) ++e.with_a_match;
  }
  for (const auto& [pair, match] : labelled) {
    const bool linked = proposed.count(pair) != 0;
    if (match) {
      ++(linked ? e.pairs.true_positives : e.pairs.false_negatives);
    } else {
      ++(linked ? e.pairs.false_positives : e.pairs.true_negatives);
    }
  }
  return e;
}

std::vector<dedup::ThresholdPoint> link_curve(std::span<const std::vector<ProposedLink>> links,
                                              std::span<const std::string> left_texts,
                                              std::span<const std::string> right_texts,
                                              const std::vector<dedup::LabelledPair>& labels,
                                              std::span<const float> thresholds) {
  std::vector<dedup::ThresholdPoint> curve;
  for (const float t : thresholds) curve.push_back({t, evaluate_links(links, left_texts, right_texts, labels, t).pairs});
  return curve;
}

}  // namespace geoalign::link
