#include "dedup/pair_evaluation.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "geoalign/error.h"

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

std::vector<float> threshold_grid() {
  std::vector<float> grid;
  for (int k = 1; k <= 19; ++k) grid.push_back(static_cast<float>(k) / 20.0f);
  return grid;
}

std::vector<ThresholdPoint> threshold_curve(const engine::Engine& model, DedupResult& result,
                                            const std::vector<LabelledPair>& labels, std::span<const float> thresholds) {
  const float run = result.threshold;
  std::vector<ThresholdPoint> curve;
  for (const float t : thresholds) {
    cluster_again(model, result, t);
    curve.push_back({t, evaluate(result, labels)});
  }
  cluster_again(model, result, run);
  return curve;
}

bool is_threshold_target(std::string_view value) {
  return value == "best-f1" || value.starts_with("precision>=") || value.starts_with("recall>=");
}

std::optional<float> choose_threshold(std::span<const ThresholdPoint> curve, std::string_view target) {
  if (target == "best-f1") {
    const ThresholdPoint* best = nullptr;
    for (const auto& p : curve) {
      if (!best || p.scores.f1() > best->scores.f1() ||
          (p.scores.f1() == best->scores.f1() && std::abs(p.threshold - 0.5f) < std::abs(best->threshold - 0.5f))) {
        best = &p;
      }
    }
    if (!best) return std::nullopt;
    return best->threshold;
  }
  const bool on_precision = target.starts_with("precision>=");
  if (!on_precision && !target.starts_with("recall>=")) {
    throw Error("threshold target \"" + std::string(target) + "\": expected best-f1, precision>=X or recall>=X");
  }
  const std::string_view number = target.substr(target.find(">=") + 2);
  double floor = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), floor);
  if (error != std::errc() || end != number.data() + number.size() || !(floor > 0 && floor <= 1)) {
    throw Error("threshold target \"" + std::string(target) + "\": X must be a number in (0, 1]");
  }
  // Among the points that reach the floor, the one best on the other measure (ties: nearer 0.5).
  const ThresholdPoint* best = nullptr;
  auto other = [&](const ThresholdPoint& p) { return on_precision ? p.scores.recall() : p.scores.precision(); };
  for (const auto& p : curve) {
    const double reached = on_precision ? p.scores.precision() : p.scores.recall();
    if (reached < floor) continue;
    if (!best || other(p) > other(*best) ||
        (other(p) == other(*best) && std::abs(p.threshold - 0.5f) < std::abs(best->threshold - 0.5f))) {
      best = &p;
    }
  }
  if (!best) return std::nullopt;
  return best->threshold;
}

}  // namespace geoalign::dedup
