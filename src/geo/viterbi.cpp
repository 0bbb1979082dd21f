#include "geo/viterbi.h"

#include <algorithm>
#include <array>
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
  // A B- label may follow any label; an I- label only the B- or I- label of its own tag
  // (transition_allowed). So B- labels scan every predecessor, vectorized over a
  // transposed copy of the transitions, and I- labels look at their two.
  std::array<float, L * L> into;
  for (std::size_t x = 0; x < L; ++x) {
    for (std::size_t y = 0; y < L; ++y) into[y * L + x] = transitions[x * L + y];
  }
  std::array<float, L> candidates;
  for (std::size_t i = 1; i < n; ++i) {
    const float* previous = &score[(i - 1) * L];
    for (std::size_t y = 0; y < L; ++y) {
      // An impossible predecessor scores -inf and never wins; a label with no possible
      // predecessor stays impossible.
      float best = kImpossible;
      std::size_t best_from = 0;
      if (label_is_begin(static_cast<Label>(y))) {
        // The maximum first, so that it vectorizes over all L, then the first
        // predecessor that reaches it, as a scan with a strict comparison would pick.
#pragma omp simd reduction(max : best)
        for (std::size_t x = 0; x < L; ++x) {
          candidates[x] = previous[x] + into[y * L + x];
          best = std::max(best, candidates[x]);
        }
        while (best != kImpossible && candidates[best_from] != best) ++best_from;
      } else {
        for (std::size_t x = y - 1; x <= y; ++x) {
          const float s = previous[x] + into[y * L + x];
          if (s > best) {
            best = s;
            best_from = x;
          }
        }
      }
      if (best == kImpossible) continue;
      score[i * L + y] = best + emissions[i * L + y];
      back[i * L + y] = static_cast<Label>(best_from);
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
