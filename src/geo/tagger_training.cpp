#include "geo/tagger_training.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <unordered_map>

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
  explicit Trainer(const std::vector<TaggedSequence>& data) : data_(data) {
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
    for (const std::size_t s : order) step(s);
  }

  SequenceTagger averaged() const {
    const double steps = std::max(1.0, step_);
    std::vector<float> transitions((L + 1) * L);
    for (std::size_t i = 0; i < transitions.size(); ++i) transitions[i] = transition_weights_.average(i, steps);
    std::vector<SequenceTagger::FeatureWeights> features;
    features.reserve(ids_.size());
    for (std::size_t f = 0; f < ids_.size(); ++f) {
      SequenceTagger::FeatureWeights fw{ids_[f], {}};
      for (std::size_t y = 0; y < L; ++y) {
        const float w = features_->average(f * L + y, steps);
        if (w != 0.0f) fw.weights.emplace_back(static_cast<Label>(y), w);
      }
      if (!fw.weights.empty()) features.push_back(std::move(fw));
    }
    return SequenceTagger(std::move(transitions), std::move(features));
  }

 private:
  void step(std::size_t s) {
    const TaggedSequence& seq = data_[s];
    const std::size_t n = seq.labels.size();
    step_ += 1.0;
    if (n == 0) return;

    std::vector<float> emissions(n * L, 0.0f);
    for (std::size_t t = 0; t < n; ++t) {
      for (std::uint32_t k = seq.features.begin[t]; k < seq.features.begin[t + 1]; ++k) {
        const float* row = features_->current_row(rows_[s][k]);
        for (std::size_t y = 0; y < L; ++y) emissions[t * L + y] += row[y];
      }
    }
    const std::vector<Label> predicted = viterbi(emissions, transition_weights_.current());
    if (predicted == seq.labels) return;

    for (std::size_t t = 0; t < n; ++t) {
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

  const std::vector<TaggedSequence>& data_;
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
  Trainer trainer(data);
  std::mt19937_64 rng(options.seed);
  for (int e = 1; e <= options.epochs; ++e) {
    trainer.epoch(rng);
    if (options.on_epoch) options.on_epoch(e, trainer.averaged());
  }
  return trainer.averaged();
}

}  // namespace geoalign::geo
