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
constexpr std::size_t kLanes = ViterbiTransitions::kOpenLanes;
constexpr float kImpossible = -std::numeric_limits<float>::infinity();

// GCC's vector extension: one AVX-512 register where the CPU has it, pairs or fours of
// narrower ones elsewhere.
typedef float Lanes16 __attribute__((vector_size(64)));
typedef std::int32_t Ints16 __attribute__((vector_size(64)));
constexpr std::size_t kVectors = kLanes / 16;
static_assert(kLanes % 16 == 0);

// Fills score and back for tokens 1..n-1. An impossible predecessor scores -inf and never
// wins; a label with no possible predecessor stays impossible (score -inf, back 0).
__attribute__((always_inline)) inline void forward(const float* emissions, std::size_t n,
                                                   const ViterbiTransitions& t, float* score, Label* back) {
  for (std::size_t i = 1; i < n; ++i) {
    const float* previous = &score[(i - 1) * L];
    float* current = &score[i * L];
    Label* came_from = &back[i * L];
    // Labels that open an element (B-, S-) follow any label that closes one (E-, S-):
    // every such predecessor, taken in order with a strict comparison so that the first
    // best one wins, for all tags at once in kVectors vectors.
    Lanes16 best[kVectors];
    Ints16 from[kVectors];
    for (std::size_t v = 0; v < kVectors; ++v) {
      best[v] = Lanes16{} + kImpossible;
      from[v] = Ints16{};
    }
    for (std::size_t tag = 0; tag < kNumTags; ++tag) {
      for (const LabelKind kind : {LabelKind::kEnd, LabelKind::kSingle}) {
        const Label x = make_label(tag, kind);
        const float* into = t.into_open(x);
        const Ints16 label = Ints16{} + static_cast<std::int32_t>(x);
        for (std::size_t v = 0; v < kVectors; ++v) {
          Lanes16 candidate;
          std::memcpy(&candidate, into + 16 * v, sizeof candidate);
          candidate += previous[x];
          const Ints16 better = candidate > best[v];
          best[v] = better ? candidate : best[v];
          from[v] = better ? label : from[v];
        }
      }
    }
    alignas(64) float best_lane[kLanes];
    alignas(64) std::int32_t from_lane[kLanes];
    std::memcpy(best_lane, best, sizeof best);
    std::memcpy(from_lane, from, sizeof from);
    for (std::size_t tag = 0; tag < kNumTags; ++tag) {
      for (const LabelKind kind : {LabelKind::kBegin, LabelKind::kSingle}) {
        const std::size_t lane = ViterbiTransitions::open_lane(tag, kind);
        const Label y = make_label(tag, kind);
        if (best_lane[lane] != kImpossible) {
          current[y] = best_lane[lane] + emissions[i * L + y];
          came_from[y] = static_cast<Label>(from_lane[lane]);
        }
      }
      // I- and E- labels: their own tag's B- and I- labels only.
      const Label b = make_label(tag, LabelKind::kBegin), in = make_label(tag, LabelKind::kInside);
      for (const LabelKind kind : {LabelKind::kInside, LabelKind::kEnd}) {
        const Label y = make_label(tag, kind);
        const float after_begin = previous[b] + t.weight(b, y);
        const float after_inside = previous[in] + t.weight(in, y);
        float best_score = kImpossible;
        Label best_from = 0;
        if (after_begin > best_score) {
          best_score = after_begin;
          best_from = b;
        }
        if (after_inside > best_score) {
          best_score = after_inside;
          best_from = in;
        }
        if (best_score != kImpossible) {
          current[y] = best_score + emissions[i * L + y];
          came_from[y] = best_from;
        }
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
  into_open_.fill(kImpossible);
  for (std::size_t x = 0; x < L; ++x) {
    for (std::size_t tag = 0; tag < kNumTags; ++tag) {
      for (const LabelKind kind : {LabelKind::kBegin, LabelKind::kSingle}) {
        into_open_[x * kLanes + open_lane(tag, kind)] = weight(x, make_label(tag, kind));
      }
    }
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
  // Among the labels that may end an address; the lowest wins a tie.
  std::size_t best_last = L;
  for (std::size_t y = 0; y < L; ++y) {
    if (!may_end(static_cast<Label>(y))) continue;
    if (best_last == L || score[(n - 1) * L + y] > score[(n - 1) * L + best_last]) best_last = y;
  }
  labels[n - 1] = static_cast<Label>(best_last);
  for (std::size_t i = n - 1; i > 0; --i) labels[i - 1] = back[i * L + labels[i]];
  return labels;
}

std::vector<Label> viterbi(std::span<const float> emissions, std::span<const float> transitions) {
  return viterbi(emissions, ViterbiTransitions(transitions));
}

}  // namespace geoalign::geo
