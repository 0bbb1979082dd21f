#include "geo/viterbi.h"

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
  // (transition_allowed). So B- labels scan every predecessor, branch-free over a
  // transposed copy of the transitions, and I- labels look at their two.
  std::array<float, L * L> into;
  for (std::size_t x = 0; x < L; ++x) {
    for (std::size_t y = 0; y < L; ++y) into[y * L + x] = transitions[x * L + y];
  }
  for (std::size_t i = 1; i < n; ++i) {
    const float* previous = &score[(i - 1) * L];
    for (std::size_t y = 0; y < L; ++y) {
      const std::size_t first = label_is_begin(static_cast<Label>(y)) ? 0 : y - 1;
      const std::size_t last = label_is_begin(static_cast<Label>(y)) ? L : y + 1;
      // An impossible predecessor scores -inf and never wins the strict comparison.
      float best = kImpossible;
      Label best_from = 0;
      for (std::size_t x = first; x < last; ++x) {
        const float s = previous[x] + into[y * L + x];
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
