#include "geo/viterbi.h"

#include <limits>

namespace geoalign::geo {

std::vector<Label> viterbi(std::span<const float> emissions, std::span<const float> transitions) {
  constexpr std::size_t L = kNumLabels;
  constexpr float kImpossible = -std::numeric_limits<float>::infinity();
  const std::size_t n = emissions.size() / L;
  if (n == 0) return {};

  std::vector<float> score(n * L, kImpossible);
  std::vector<Label> back(n * L, 0);
  for (std::size_t y = 0; y < L; ++y) {
    if (transition_allowed(std::nullopt, static_cast<Label>(y))) score[y] = transitions[L * L + y] + emissions[y];
  }
  for (std::size_t i = 1; i < n; ++i) {
    const float* previous = &score[(i - 1) * L];
    for (std::size_t y = 0; y < L; ++y) {
      float best = kImpossible;
      Label best_from = 0;
      for (std::size_t x = 0; x < L; ++x) {
        if (previous[x] == kImpossible || !transition_allowed(static_cast<Label>(x), static_cast<Label>(y))) continue;
        const float s = previous[x] + transitions[x * L + y];
        if (s > best) {
          best = s;
          best_from = static_cast<Label>(x);
        }
      }
      if (best == kImpossible) continue;
      score[i * L + y] = best + emissions[i * L + y];
      back[i * L + y] = best_from;
    }
  }
  std::vector<Label> labels(n);
  std::size_t best_last = 0;
  for (std::size_t y = 1; y < L; ++y) {
    if (score[(n - 1) * L + y] > score[(n - 1) * L + best_last]) best_last = y;
  }
  labels[n - 1] = static_cast<Label>(best_last);
  for (std::size_t i = n - 1; i > 0; --i) labels[i - 1] = back[i * L + labels[i]];
  return labels;
}

}  // namespace geoalign::geo
