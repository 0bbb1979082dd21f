#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "geoalign/parser.h"
#include "match/gbdt.h"
#include "match/term_weights.h"

namespace geoalign::match {

// The feature-augmented match head: it parses both addresses, compares them element by
// element (match/pair_features.h), and feeds those comparisons with the encoder's class
// probabilities to boosted trees that give the final probabilities. Lives in a model
// folder as match_head.json, which names the parser folder and the term weights file it
// was trained with.
class MatchHead {
 public:
  static constexpr const char* kFileName = "match_head.json";

  // Throws Error naming the file for anything malformed or inconsistent with this build.
  static std::unique_ptr<MatchHead> load(const std::filesystem::path& model_dir, std::size_t num_labels);

  // Thread-safe. Throws Error on invalid UTF-8.
  std::vector<float> pair_features(std::string_view a, std::string_view b) const;
  // For n pairs: their pair features, the encoder's probabilities [n, labels] and the
  // head's [n, labels].
  void probabilities(std::span<const std::span<const float>> pair_features, std::span<const float> encoder_probabilities,
                     std::span<float> out) const;

 private:
  MatchHead(AddressParser parser, TermWeights weights, GradientBoostedTrees trees)
      : parser_(std::move(parser)), weights_(std::move(weights)), trees_(std::move(trees)) {}
  AddressParser parser_;
  TermWeights weights_;
  GradientBoostedTrees trees_;
};

}  // namespace geoalign::match
