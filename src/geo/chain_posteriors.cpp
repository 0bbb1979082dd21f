#include "geo/chain_posteriors.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "geoalign/error.h"

namespace geoalign::geo {

namespace {
constexpr std::size_t L = kNumLabels;
constexpr std::size_t kStartRow = kNumLabels;
}  // namespace

ChainPosteriors::ChainPosteriors(std::span<const float> emissions, std::span<const float> transitions) {
  const std::size_t n = emissions.size() / L;
  if (n == 0 || emissions.size() != n * L || transitions.size() != (L + 1) * L) {
    throw Error("ChainPosteriors: emissions must be tokens x labels (at least one token) and transitions (labels + 1) x labels");
  }
  weight_.assign((L + 1) * L, 0.0);
  for (std::size_t from = 0; from <= L; ++from) {
    const std::optional<Label> previous =
        from == kStartRow ? std::nullopt : std::optional<Label>(static_cast<Label>(from));
    for (std::size_t to = 0; to < L; ++to) {
      if (transition_allowed(previous, static_cast<Label>(to))) weight_[from * L + to] = std::exp(double(transitions[from * L + to]));
    }
  }
  emit_.resize(n * L);
  std::vector<double> largest(n);
  for (std::size_t t = 0; t < n; ++t) {
    const float* row = &emissions[t * L];
    largest[t] = *std::max_element(row, row + L);
    for (std::size_t y = 0; y < L; ++y) emit_[t * L + y] = std::exp(double(row[y]) - largest[t]);
  }

  // alpha_t sums to 1 after dividing by scale_t; log Z is the sum of the logs of what
  // was divided out, the scales and the largest emissions.
  alpha_.assign(n * L, 0.0);
  scale_.assign(n, 0.0);
  for (std::size_t t = 0; t < n; ++t) {
    double* a = &alpha_[t * L];
    for (std::size_t y = 0; y < L; ++y) {
      double into = 0.0;
      if (t == 0) {
        into = weight_[kStartRow * L + y];
      } else {
        const double* previous = &alpha_[(t - 1) * L];
        for (std::size_t p = 0; p < L; ++p) into += previous[p] * weight_[p * L + y];
      }
      a[y] = into * emit_[t * L + y];
      scale_[t] += a[y];
    }
    if (!(scale_[t] > 0.0) || !std::isfinite(scale_[t])) throw Error("ChainPosteriors: label scores too large to sum (a CRF trained with too high a learning rate)");
    for (std::size_t y = 0; y < L; ++y) a[y] /= scale_[t];
    log_partition_ += std::log(scale_[t]) + largest[t];
  }

  // beta_t(p): the scaled mass of every way to finish from label p at t, so that
  // alpha_t(y) * beta_t(y) is the marginal. Only a label that closes an element ends one.
  beta_.assign(n * L, 0.0);
  double ends = 0.0;
  for (std::size_t y = 0; y < L; ++y) {
    if (may_end(static_cast<Label>(y))) {
      beta_[(n - 1) * L + y] = 1.0;
      ends += alpha_[(n - 1) * L + y];
    }
  }
  if (!(ends > 0.0)) throw Error("ChainPosteriors: no well-formed label sequence");
  // alpha_ summed over every last label; only those that may end count.
  for (std::size_t y = 0; y < L; ++y) beta_[(n - 1) * L + y] /= ends;
  log_partition_ += std::log(ends);
  std::vector<double> onward(L);
  for (std::size_t t = n - 1; t-- > 0;) {
    const double* next = &beta_[(t + 1) * L];
    for (std::size_t y = 0; y < L; ++y) onward[y] = emit_[(t + 1) * L + y] * next[y] / scale_[t + 1];
    for (std::size_t p = 0; p < L; ++p) {
      double sum = 0.0;
      for (std::size_t y = 0; y < L; ++y) sum += weight_[p * L + y] * onward[y];
      beta_[t * L + p] = sum;
    }
  }
}

double ChainPosteriors::transition(std::size_t t, Label from, Label to) const {
  return alpha_[(t - 1) * L + from] * weight_[from * L + to] * emit_[t * L + to] * beta_[t * L + to] / scale_[t];
}

}  // namespace geoalign::geo
