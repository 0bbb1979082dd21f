#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dedup/deduplicator.h"

namespace geoalign::dedup {

// A labelled pair of addresses (normalized as the model normalizes): one place or not.
struct LabelledPair {
  std::string a, b;
  bool match;
};

// Pairwise quality of a clustering against labelled pairs: a labelled match in one
// cluster is a true positive, in two a false negative; a labelled non-match in one
// cluster is a false positive. Candidate recall: the share of labelled matches that
// blocking proposed (or that are one text), i.e. that clustering could see at all.
struct PairwiseScores {
  std::size_t true_positives = 0, false_positives = 0, false_negatives = 0, true_negatives = 0;
  std::size_t matches_blocked = 0, not_in_input = 0;
  double precision() const;
  double recall() const;
  double f1() const;
  double candidate_recall() const;
};

PairwiseScores evaluate(const DedupResult& result, const std::vector<LabelledPair>& labels);

// Pairwise quality over thresholds: what to choose a threshold from.
struct ThresholdPoint {
  float threshold;
  PairwiseScores scores;
};
// The grid `dedup --eval` reports: 0.05 to 0.95 in steps of 0.05.
std::vector<float> threshold_grid();
// `result` clustered again at each threshold (cluster_again: its scored pairs, cross pairs
// scored on demand and kept in result.scored) and evaluated; result ends clustered at the
// threshold it came with.
std::vector<ThresholdPoint> threshold_curve(const engine::Engine& model, DedupResult& result,
                                            const std::vector<LabelledPair>& labels, std::span<const float> thresholds);

// A threshold chosen on a curve: "best-f1" (the highest F1; ties to the threshold nearer
// 0.5), or "precision>=X" / "recall>=X" (X in (0, 1]: the highest recall whose precision
// reaches X, or the highest precision whose recall does). Empty when no point meets the
// target; throws Error for a target it cannot read.
std::optional<float> choose_threshold(std::span<const ThresholdPoint> curve, std::string_view target);
// Whether `value` names a target rather than a number.
bool is_threshold_target(std::string_view value);

}  // namespace geoalign::dedup
