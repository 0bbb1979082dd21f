#include "geo/viterbi.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/cpu/kernel_targets.h"
#include "geoalign/error.h"

namespace geoalign::geo {

namespace {

constexpr std::size_t L = kNumLabels;
constexpr std::size_t kLanes = ViterbiTransitions::kBeginLanes;
constexpr float kImpossible = -std::numeric_limits<float>::infinity();

// GCC's vector extensions: one AVX-512 register and one AVX register where the CPU has
// them, pairs of narrower ones elsewhere.
typedef float Lanes16 __attribute__((vector_size(64)));
typedef float Lanes8 __attribute__((vector_size(32)));
typedef std::int32_t Ints16 __attribute__((vector_size(64)));
typedef std::int32_t Ints8 __attribute__((vector_size(32)));
static_assert(ViterbiTransitions::kBeginLanes == 16 + 8);

// Fills score and back for tokens 1..n-1. An impossible predecessor scores -inf and never
// wins; a label with no possible predecessor stays impossible (score -inf, back 0).
__attribute__((always_inline)) inline void forward(const float* emissions, std::size_t n,
                                                   const ViterbiTransitions& t, float* score, Label* back) {
  for (std::size_t i = 1; i < n; ++i) {
    const float* previous = &score[(i - 1) * L];
    float* current = &score[i * L];
    Label* came_from = &back[i * L];
    // B- labels: every predecessor, taken in order with a strict comparison so that the
    // first best one wins, for all tags at once in two vectors (16 lanes, then 8).
    Lanes16 best_low = Lanes16{} + kImpossible;
    Lanes8 best_high = Lanes8{} + kImpossible;
    Ints16 from_low{};
    Ints8 from_high{};
    for (std::size_t x = 0; x < L; ++x) {
      const float* into = t.into_begin(x);
      Lanes16 low;
      Lanes8 high;
      std::memcpy(&low, into, sizeof low);
      std::memcpy(&high, into + 16, sizeof high);
      low += previous[x];
      high += previous[x];
      const Ints16 label_low = Ints16{} + static_cast<std::int32_t>(x);
      const Ints8 label_high = Ints8{} + static_cast<std::int32_t>(x);
      const Ints16 better_low = low > best_low;
      const Ints8 better_high = high > best_high;
      best_low = better_low ? low : best_low;
      best_high = better_high ? high : best_high;
      from_low = better_low ? label_low : from_low;
      from_high = better_high ? label_high : from_high;
    }
    alignas(64) float best[kLanes];
    alignas(64) std::int32_t from[kLanes];
    std::memcpy(best, &best_low, sizeof best_low);
    std::memcpy(best + 16, &best_high, sizeof best_high);
    std::memcpy(from, &from_low, sizeof from_low);
    std::memcpy(from + 16, &from_high, sizeof from_high);
    for (std::size_t tag = 0; tag < kNumTags; ++tag) {
      const std::size_t b = begin_label(tag), in = inside_label(tag);
      if (best[tag] != kImpossible) {
        current[b] = best[tag] + emissions[i * L + b];
        came_from[b] = static_cast<Label>(from[tag]);
      }
      // I- labels: their own tag's B- and I- labels only.
      const float after_begin = previous[b] + t.weight(b, in);
      const float after_inside = previous[in] + t.weight(in, in);
      float inside = kImpossible;
      Label inside_from = 0;
      if (after_begin > inside) {
        inside = after_begin;
        inside_from = static_cast<Label>(b);
      }
      if (after_inside > inside) {
        inside = after_inside;
        inside_from = static_cast<Label>(in);
      }
      if (inside != kImpossible) {
        current[in] = inside + emissions[i * L + in];
        came_from[in] = inside_from;
      }
    }
  }
}

using ForwardKernel = void (*)(const float*, std::size_t, const ViterbiTransitions&, float*, Label*);
void forward_baseline(const float* e, std::size_t n, const ViterbiTransitions& t, float* s, Label* b) {
  forward(e, n, t, s, b);
}
GEOALIGN_TARGET_AVX2 void forward_avx2(const float* e, std::size_t n, const ViterbiTransitions& t, float* s, Label* b) {
  forward(e, n, t, s, b);
}
GEOALIGN_TARGET_AVX512 void forward_avx512(const float* e, std::size_t n, const ViterbiTransitions& t, float* s,
                                           Label* b) {
  forward(e, n, t, s, b);
}

}  // namespace

ViterbiTransitions::ViterbiTransitions(std::span<const float> transitions) {
  if (transitions.size() != weights_.size()) throw Error("viterbi: wrong number of transition weights");
  std::copy(transitions.begin(), transitions.end(), weights_.begin());
  into_begin_.fill(kImpossible);
  for (std::size_t x = 0; x < L; ++x) {
    for (std::size_t tag = 0; tag < kNumTags; ++tag) into_begin_[x * kLanes + tag] = weight(x, begin_label(tag));
  }
}

std::vector<Label> viterbi(std::span<const float> emissions, const ViterbiTransitions& transitions) {
  const std::size_t n = emissions.size() / L;
  if (n == 0) return {};
  std::vector<float> score(n * L, kImpossible);
  std::vector<Label> back(n * L, 0);
  for (std::size_t y = 0; y < L; ++y) {
    if (transition_allowed(std::nullopt, static_cast<Label>(y))) score[y] = transitions.first(y) + emissions[y];
  }
  const ForwardKernel kernel = cpu::pick_kernel<ForwardKernel>(forward_baseline, forward_avx2, forward_avx512);
  kernel(emissions.data(), n, transitions, score.data(), back.data());
  std::vector<Label> labels(n);
  std::size_t best_last = 0;
  for (std::size_t y = 1; y < L; ++y) {
    if (score[(n - 1) * L + y] > score[(n - 1) * L + best_last]) best_last = y;
  }
  labels[n - 1] = static_cast<Label>(best_last);
  for (std::size_t i = n - 1; i > 0; --i) labels[i - 1] = back[i * L + labels[i]];
  return labels;
}

std::vector<Label> viterbi(std::span<const float> emissions, std::span<const float> transitions) {
  return viterbi(emissions, ViterbiTransitions(transitions));
}

}  // namespace geoalign::geo
