#include "match/match_head.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "match/pair_features.h"
#include "model/json_file.h"

namespace geoalign::match {

namespace {
constexpr const char* kFormat = "geoalign-match-head-1";
constexpr std::string_view kEncoderFeature = "encoder_p";
constexpr const char* kOrderFeature = "order_swapped";
}  // namespace

std::unique_ptr<MatchHead> MatchHead::load(const std::filesystem::path& model_dir, std::size_t num_labels,
                                           const char* file_name) {
  const auto file = model_dir / file_name;
  const std::string where = file.string();
  std::vector<GradientBoostedTrees::FileTree> tree_parts;
  const nlohmann::json j = GradientBoostedTrees::read_file(file, tree_parts);
  std::vector<std::string> names;
  std::string parser_dir, weights_file;
  std::map<std::string, float, std::less<>> link_thresholds;
  bool canonical_order = false;
  try {
    if (j.at("format").get<std::string>() != kFormat) throw Error(where + ": format is not " + kFormat);
    names = j.at("features").get<std::vector<std::string>>();
    parser_dir = j.at("parser").get<std::string>();
    weights_file = j.at("term_weights").get<std::string>();
    if (j.contains("order")) {
      const auto order = j.at("order").get<std::string>();
      if (order != "given" && order != "canonical") {
        throw Error(where + ": order is \"" + order + "\", not given or canonical");
      }
      canonical_order = order == "canonical";
    }
    if (j.contains("link_thresholds")) {
      const auto& given = j.at("link_thresholds");
      if (!given.is_object()) throw Error(where + ": link_thresholds is not an object of merge rule: threshold");
      for (const auto& [rule, value] : given.items()) {
        if (rule != "exact" && rule != "partial") {
          throw Error(where + ": link_thresholds names an unknown merge rule \"" + rule + "\" (exact, partial)");
        }
        const auto t = value.get<float>();
        if (!(t > 0.0f && t <= 1.0f)) throw Error(where + ": link_thresholds." + rule + " is not in (0, 1]");
        link_thresholds.emplace(rule, t);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what());
  }
  // The trees index features by position, so the order must be this build's exactly:
  // the pair features, then all of the encoder's probabilities or none of them, then the
  // order input of a head trained in canonical order.
  const bool uses_encoder = std::any_of(names.begin(), names.end(),
                                        [](const std::string& name) { return name.starts_with(kEncoderFeature); });
  std::vector<std::string> expected = pair_feature_names();
  for (std::size_t k = 0; uses_encoder && k < num_labels; ++k) {
    expected.push_back(std::string(kEncoderFeature) + std::to_string(k));
  }
  if (canonical_order) expected.push_back(kOrderFeature);
  if (names != expected) {
    const auto [mine, theirs] = std::mismatch(expected.begin(), expected.end(), names.begin(), names.end());
    const std::size_t at = static_cast<std::size_t>(mine - expected.begin());
    const auto name_or_end = [](auto it, auto end) { return it == end ? std::string("(none)") : "\"" + *it + "\""; };
    throw Error(where + ": trained on other pair features than this build computes (" + std::to_string(names.size()) +
                " against " + std::to_string(expected.size()) + "; feature " + std::to_string(at) + " is " +
                name_or_end(theirs, names.end()) + " there and " + name_or_end(mine, expected.end()) +
                " here); retrain it with tools/train/train_match_head.py");
  }
  // A rerank head scores pairs the encoder never sees (search, dedup): refused here, at
  // load, wherever it is loaded, rather than when its first pairs are scored.
  if (uses_encoder && std::string_view(file_name) == kRerankFileName) {
    throw Error(where + ": reads the encoder's probabilities (encoder_p*), which a rerank head runs without");
  }
  if (canonical_order && std::string_view(file_name) == kRerankFileName) {
    throw Error(where + ": order canonical is for a match head; a rerank head reads both orders of a pair");
  }
  auto trees = GradientBoostedTrees::from_json(j, tree_parts, names.size(), where);
  if (trees.num_classes() != num_labels) {
    throw Error(where + ": " + std::to_string(trees.num_classes()) + " classes, the model has " +
                std::to_string(num_labels) + " labels");
  }
  auto comparer = PairComparer::load(model_dir / parser_dir, model_dir / weights_file);
  return std::unique_ptr<MatchHead>(
      new MatchHead(std::move(comparer), std::move(trees), std::move(names), uses_encoder,
                                                canonical_order, std::move(link_thresholds)));
}

std::optional<float> MatchHead::link_threshold(std::string_view rule) const {
  const auto it = link_thresholds_.find(rule);
  if (it == link_thresholds_.end()) return std::nullopt;
  return it->second;
}

void MatchHead::append_inputs(std::size_t k, std::span<const float> pair_features, std::span<const float> encoder_row,
                              bool order_swapped, std::vector<float>& rows) const {
  const std::size_t width = pair_feature_names().size();
  if (pair_features.size() != width) {
    throw Error("match head: pair " + std::to_string(k) + " has " + std::to_string(pair_features.size()) +
                " features, not " + std::to_string(width) + " (compute them with the head's comparer)");
  }
  rows.insert(rows.end(), pair_features.begin(), pair_features.end());
  rows.insert(rows.end(), encoder_row.begin(), encoder_row.end());
  if (canonical_order_) rows.push_back(order_swapped ? 1.0f : 0.0f);
}

std::size_t MatchHead::encoder_width(std::size_t n, std::span<const float> encoder_probabilities) const {
  const std::size_t labels = trees_.num_classes();
  const std::size_t width = uses_encoder_ ? labels : 0;
  if (encoder_probabilities.size() != n * width) {
    if (!uses_encoder_) throw Error("match head: given the encoder's probabilities, but trained without them");
    throw Error("match head: expected the encoder's " + std::to_string(n) + " x " + std::to_string(labels) +
                " probabilities, got " + std::to_string(encoder_probabilities.size()));
  }
  return width;
}

void MatchHead::probabilities(std::span<const std::span<const float>> pair_features,
                              std::span<const float> encoder_probabilities, std::span<float> out,
                              bool order_swapped) const {
  const std::size_t n = pair_features.size();
  const std::size_t labels = trees_.num_classes();
  const std::size_t columns = encoder_width(n, encoder_probabilities);
  if (out.size() != n * labels) {
    throw Error("match head: room for " + std::to_string(out.size()) + " probabilities, not " + std::to_string(n) +
                " x " + std::to_string(labels));
  }
  std::vector<float> rows;
  rows.reserve(n * input_names_.size());
  for (std::size_t k = 0; k < n; ++k) {
    append_inputs(k, pair_features[k], encoder_probabilities.subspan(k * columns, columns), order_swapped, rows);
  }
  trees_.predict(rows, n, out);
}

std::vector<float> MatchHead::probabilities_with_tests_reversed(std::span<const float> pair_features,
                                                                std::span<const float> encoder_probabilities,
                                                                bool order_swapped) const {
  encoder_width(1, encoder_probabilities);
  std::vector<float> row;
  row.reserve(input_names_.size());
  append_inputs(0, pair_features, encoder_probabilities, order_swapped, row);
  std::vector<float> out(input_names_.size() * trees_.num_classes());
  trees_.probabilities_with_tests_reversed(row, out);
  return out;
}

}  // namespace geoalign::match
