#include "match/match_head.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "match/pair_features.h"
#include "model/json_file.h"

namespace geoalign::match {

namespace {
constexpr const char* kFormat = "geoalign-match-head-1";
}

std::unique_ptr<MatchHead> MatchHead::load(const std::filesystem::path& model_dir, std::size_t num_labels) {
  const auto file = model_dir / kFileName;
  const std::string where = file.string();
  std::vector<GradientBoostedTrees::FileTree> tree_parts;
  const nlohmann::json j = GradientBoostedTrees::read_file(file, tree_parts);
  std::vector<std::string> names;
  std::string parser_dir, weights_file;
  try {
    if (j.at("format").get<std::string>() != kFormat) throw Error(where + ": format is not " + kFormat);
    names = j.at("features").get<std::vector<std::string>>();
    parser_dir = j.at("parser").get<std::string>();
    weights_file = j.at("term_weights").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what());
  }
  // The trees index features by position, so the order must be this build's exactly.
  std::vector<std::string> expected = pair_feature_names();
  for (std::size_t k = 0; k < num_labels; ++k) expected.push_back("encoder_p" + std::to_string(k));
  if (names != expected) {
    const auto [mine, theirs] = std::mismatch(expected.begin(), expected.end(), names.begin(), names.end());
    const std::size_t at = static_cast<std::size_t>(mine - expected.begin());
    const auto name_or_end = [](auto it, auto end) { return it == end ? std::string("(none)") : "\"" + *it + "\""; };
    throw Error(where + ": trained on other pair features than this build computes (" + std::to_string(names.size()) +
                " against " + std::to_string(expected.size()) + "; feature " + std::to_string(at) + " is " +
                name_or_end(theirs, names.end()) + " there and " + name_or_end(mine, expected.end()) +
                " here); retrain it with tools/train/train_match_head.py");
  }
  auto trees = GradientBoostedTrees::from_json(j, tree_parts, names.size(), where);
  if (trees.num_classes() != num_labels) {
    throw Error(where + ": " + std::to_string(trees.num_classes()) + " classes, the model has " +
                std::to_string(num_labels) + " labels");
  }
  auto comparer = PairComparer::load(model_dir / parser_dir, model_dir / weights_file);
  return std::unique_ptr<MatchHead>(new MatchHead(std::move(comparer), std::move(trees)));
}

void MatchHead::probabilities(std::span<const std::span<const float>> pair_features,
                              std::span<const float> encoder_probabilities, std::span<float> out) const {
  const std::size_t n = pair_features.size();
  const std::size_t labels = trees_.num_classes();
  const std::size_t width = pair_feature_names().size();
  if (encoder_probabilities.size() != n * labels || out.size() != n * labels) {
    throw Error("match head: expected " + std::to_string(n) + " x " + std::to_string(labels) + " probabilities");
  }
  std::vector<float> rows;
  rows.reserve(n * (width + labels));
  for (std::size_t k = 0; k < n; ++k) {
    if (pair_features[k].size() != width) {
      throw Error("match head: pair features missing (encode pairs with PairScorer)");
    }
    rows.insert(rows.end(), pair_features[k].begin(), pair_features[k].end());
    rows.insert(rows.end(), encoder_probabilities.begin() + static_cast<std::ptrdiff_t>(k * labels),
                encoder_probabilities.begin() + static_cast<std::ptrdiff_t>((k + 1) * labels));
  }
  trees_.predict(rows, n, out);
}

}  // namespace geoalign::match
