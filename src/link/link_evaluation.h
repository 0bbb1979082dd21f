#pragma once

#include <span>
#include <string>
#include <vector>

#include "dedup/pair_evaluation.h"

namespace geoalign::link {

// A link as evaluation reads it: the normalized texts of a left address and of the right
// record it matched, and the pair scorer's P(exact_match).
struct ProposedLink {
  std::string left, right;
  float p_exact;
};

// Link quality against labelled pairs (addresses normalized; a pair may name the left
// address first or second).
struct LinkEvaluation {
  // Pairwise: a labelled match among the links is a true positive, one missing a false
  // negative; a labelled non-match among the links a false positive. Pairs whose left
  // address is not a left row, or whose right address is not in the right table, are
  // counted in not_in_input.
  dedup::PairwiseScores pairs;
  // The left rows with a labelled match in the right table, and those whose best link is one.
  std::size_t with_a_match = 0, best_is_a_match = 0;
  double top1_accuracy() const {
    return with_a_match ? static_cast<double>(best_is_a_match) / static_cast<double>(with_a_match) : 0.0;
  }
};

// `links[i]`: left row i's links, best first (texts as ProposedLink says); `right_texts`:
// the normalized texts of the right table. Only links with p_exact >= min_p_exact count.
LinkEvaluation evaluate_links(std::span<const std::vector<ProposedLink>> links, std::span<const std::string> left_texts,
                              std::span<const std::string> right_texts,
                              const std::vector<dedup::LabelledPair>& labels, float min_p_exact = 0.0f);

// evaluate_links at each threshold (min_p_exact), for dedup's curve table and chart.
std::vector<dedup::ThresholdPoint> link_curve(std::span<const std::vector<ProposedLink>> links,
                                              std::span<const std::string> left_texts,
                                              std::span<const std::string> right_texts,
                                              const std::vector<dedup::LabelledPair>& labels,
                                              std::span<const float> thresholds);

}  // namespace geoalign::link
