#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "match/gbdt.h"
#include "match/pair_comparer.h"

namespace geoalign::match {

// The feature-augmented match head: its comparer parses both addresses and compares them
// element by element (match/pair_features.h), and it feeds those comparisons with the encoder's class
// probabilities to boosted trees that give the final probabilities. Lives in a model
// folder as match_head.json, which names the parser folder and the term weights file it
// was trained with.
class MatchHead {
 public:
  static constexpr const char* kFileName = "match_head.json";

  // Throws Error naming the file for anything malformed or inconsistent with this build.
  static std::unique_ptr<MatchHead> load(const std::filesystem::path& model_dir, std::size_t num_labels);

  // The parser and term weights named in the file, which turn a pair into the features
  // the trees were trained on.
  const PairComparer& comparer() const { return comparer_; }
  // For n pairs: their pair features, the encoder's probabilities [n, labels] and the
  // head's [n, labels].
  void probabilities(std::span<const std::span<const float>> pair_features, std::span<const float> encoder_probabilities,
                     std::span<float> out) const;

 private:
  MatchHead(PairComparer comparer, GradientBoostedTrees trees) : comparer_(std::move(comparer)), trees_(std::move(trees)) {}
  PairComparer comparer_;
  GradientBoostedTrees trees_;
};

}  // namespace geoalign::match
