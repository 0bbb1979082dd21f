#pragma once

#include <string>
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

}  // namespace geoalign::dedup
