#include "geo/tagger_training.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <unordered_map>

#include "geo/chain_posteriors.h"
#include "geo/viterbi.h"
#include "geoalign/error.h"

namespace geoalign::geo {

namespace {

constexpr std::size_t L = kNumLabels;
constexpr std::size_t kStartRow = kNumLabels;

// Weights with lazy averaging: after c steps the average is w - u / c, where u sums each
// update scaled by the step it happened at.
class AveragedWeights {
 public:
  explicit AveragedWeights(std::size_t size) : w_(size, 0.0f), u_(size, 0.0f) {}
  void add(std::size_t i, float delta, double step) {
    w_[i] += delta;
    u_[i] += step * delta;
  }
  float average(std::size_t i, double steps) const { return static_cast<float>(w_[i] - u_[i] / steps); }
  const float* current_row(std::size_t row) const { return &w_[row * L]; }
  std::span<const float> current() const { return w_; }

 private:
  std::vector<float> w_;
  std::vector<double> u_;  // grows with the step count; float would lose the average
};

class Trainer {
 public:
  Trainer(const std::vector<TaggedSequence>& data, const TaggerTrainingOptions& options)
      : data_(data), options_(options) {
    // Only features seen with a gold sequence get weights; the rest can never be updated
    // toward a gold label, and a tagger file needs no row for them.
    rows_.resize(data.size());
    for (std::size_t s = 0; s < data.size(); ++s) {
      const auto& seq = data[s];
      if (seq.features.tokens() != seq.labels.size()) throw Error("training sequence has mismatched labels");
      rows_[s].reserve(seq.features.ids.size());
      for (const std::uint64_t id : seq.features.ids) {
        const auto [it, added] = index_.emplace(id, static_cast<std::uint32_t>(ids_.size()));
        if (added) ids_.push_back(id);
        rows_[s].push_back(it->second);
      }
    }
    features_ = std::make_unique<AveragedWeights>(ids_.size() * L);
  }

  void epoch(std::mt19937_64& rng) {
    std::vector<std::size_t> order(data_.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (const std::size_t s : order) {
      step_ += 1.0;
      if (data_[s].labels.empty()) continue;
      if (options_.algorithm == TaggerAlgorithm::kCrf) {
        crf_step(s);
      } else {
        perceptron_step(s);
      }
    }
  }

  SequenceTagger averaged() const {
    const double steps = std::max(1.0, step_);
    const float smallest = options_.algorithm == TaggerAlgorithm::kCrf ? static_cast<float>(options_.prune) : 0.0f;
    std::vector<float> transitions((L + 1) * L);
    for (std::size_t i = 0; i < transitions.size(); ++i) transitions[i] = transition_weights_.average(i, steps);
    std::vector<SequenceTagger::FeatureWeights> features;
    features.reserve(ids_.size());
    for (std::size_t f = 0; f < ids_.size(); ++f) {
      SequenceTagger::FeatureWeights fw{ids_[f], {}};
      for (std::size_t y = 0; y < L; ++y) {
        const float w = features_->average(f * L + y, steps);
        if (std::fabs(w) > smallest) fw.weights.emplace_back(static_cast<Label>(y), w);
      }
      if (!fw.weights.empty()) features.push_back(std::move(fw));
    }
    return SequenceTagger(std::move(transitions), std::move(features));
  }

 private:
  std::vector<float> emissions(std::size_t s) const {
    const TaggedSequence& seq = data_[s];
    std::vector<float> out(seq.labels.size() * L, 0.0f);
    for (std::size_t t = 0; t < seq.labels.size(); ++t) {
      for (std::uint32_t k = seq.features.begin[t]; k < seq.features.begin[t + 1]; ++k) {
        const float* row = features_->current_row(rows_[s][k]);
        for (std::size_t y = 0; y < L; ++y) out[t * L + y] += row[y];
      }
    }
    return out;
  }

  void perceptron_step(std::size_t s) {
    const TaggedSequence& seq = data_[s];
    const std::vector<Label> predicted = viterbi(emissions(s), transition_weights_.current());
    if (predicted == seq.labels) return;

    for (std::size_t t = 0; t < seq.labels.size(); ++t) {
      const Label gold = seq.labels[t], guess = predicted[t];
      const std::size_t gold_from = t == 0 ? kStartRow : seq.labels[t - 1];
      const std::size_t guess_from = t == 0 ? kStartRow : predicted[t - 1];
      if (gold_from != guess_from || gold != guess) {
        transition_weights_.add(gold_from * L + gold, 1.0f, step_);
        transition_weights_.add(guess_from * L + guess, -1.0f, step_);
      }
      if (gold == guess) continue;
      for (std::uint32_t k = seq.features.begin[t]; k < seq.features.begin[t + 1]; ++k) {
        features_->add(rows_[s][k] * L + gold, 1.0f, step_);
        features_->add(rows_[s][k] * L + guess, -1.0f, step_);
      }
    }
  }

  // The log-likelihood's gradient is the gold counts less the expected ones.
  void crf_step(std::size_t s) {
    const TaggedSequence& seq = data_[s];
    const std::size_t n = seq.labels.size();
    const double rate = options_.learning_rate / (1.0 + step_ / static_cast<double>(data_.size()));
    const ChainPosteriors posteriors(emissions(s), transition_weights_.current());
    // Below this a label's share moves its weights by less than float keeps.
    constexpr double kNegligible = 1e-9;
    std::vector<float> delta(L);
    for (std::size_t t = 0; t < n; ++t) {
      for (std::size_t y = 0; y < L; ++y) {
        const double p = posteriors.label(t, static_cast<Label>(y));
        delta[y] = p < kNegligible ? 0.0f : static_cast<float>(-rate * p);
      }
      delta[seq.labels[t]] += static_cast<float>(rate);
      for (std::uint32_t k = seq.features.begin[t]; k < seq.features.begin[t + 1]; ++k) {
        for (std::size_t y = 0; y < L; ++y) {
          if (delta[y] != 0.0f) features_->add(rows_[s][k] * L + y, delta[y], step_);
        }
      }
      if (t == 0) {
        for (std::size_t y = 0; y < L; ++y) {
          if (delta[y] != 0.0f) transition_weights_.add(kStartRow * L + y, delta[y], step_);
        }
      } else {
        for (std::size_t from = 0; from < L; ++from) {
          if (posteriors.label(t - 1, static_cast<Label>(from)) < kNegligible) continue;
          for (std::size_t to = 0; to < L; ++to) {
            const double p = posteriors.transition(t, static_cast<Label>(from), static_cast<Label>(to));
            if (p >= kNegligible) transition_weights_.add(from * L + to, static_cast<float>(-rate * p), step_);
          }
        }
        transition_weights_.add(std::size_t{seq.labels[t - 1]} * L + seq.labels[t], static_cast<float>(rate), step_);
      }
    }
  }

  const std::vector<TaggedSequence>& data_;
  const TaggerTrainingOptions& options_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<std::uint64_t> ids_;
  std::vector<std::vector<std::uint32_t>> rows_;  // per sequence, per feature occurrence
  std::unique_ptr<AveragedWeights> features_;
  AveragedWeights transition_weights_{(L + 1) * L};
  double step_ = 0;
};

}  // namespace

SequenceTagger train_tagger(const std::vector<TaggedSequence>& data, const TaggerTrainingOptions& options) {
  if (data.empty()) throw Error("no training sequences");
  if (options.algorithm == TaggerAlgorithm::kCrf && !(options.learning_rate > 0.0)) {
    throw Error("the CRF's learning rate must be positive");
  }
  Trainer trainer(data, options);
  std::mt19937_64 rng(options.seed);
  for (int e = 1; e <= options.epochs; ++e) {
    trainer.epoch(rng);
    if (options.on_epoch) options.on_epoch(e, trainer.averaged());
  }
  return trainer.averaged();
}

}  // namespace geoalign::geo
