#include "dedup/pair_evaluation.h"

#include <algorithm>

namespace geoalign::dedup {

namespace {
double ratio(std::size_t a, std::size_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }
}  // namespace

double PairwiseScores::precision() const { return ratio(true_positives, true_positives + false_positives); }
double PairwiseScores::recall() const { return ratio(true_positives, true_positives + false_negatives); }
double PairwiseScores::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}
double PairwiseScores::candidate_recall() const { return ratio(matches_blocked, true_positives + false_negatives); }

PairwiseScores evaluate(const DedupResult& result, const std::vector<LabelledPair>& labels) {
  PairwiseScores s;
  for (const auto& l : labels) {
    const auto a = result.address_of_text.find(l.a), b = result.address_of_text.find(l.b);
    if (a == result.address_of_text.end() || b == result.address_of_text.end()) {
      ++s.not_in_input;
      continue;
    }
    const bool together = result.cluster[a->second] == result.cluster[b->second];
    if (l.match) {
      ++(together ? s.true_positives : s.false_negatives);
      const std::pair key{std::min(a->second, b->second), std::max(a->second, b->second)};
      if (a->second == b->second || std::binary_search(result.candidates.begin(), result.candidates.end(), key)) {
        ++s.matches_blocked;
      }
    } else {
      ++(together ? s.false_positives : s.true_negatives);
    }
  }
  return s;
}

}  // namespace geoalign::dedup
