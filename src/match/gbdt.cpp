#include "match/gbdt.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "geoalign/error.h"

namespace geoalign::match {

GradientBoostedTrees GradientBoostedTrees::from_json(const nlohmann::json& j, std::size_t num_features,
                                                     const std::string& where) {
  GradientBoostedTrees model;
  try {
    model.bias_ = j.at("bias").get<std::vector<float>>();
    if (model.bias_.empty()) throw Error(where + ": \"bias\" is empty");
    for (const auto& t : j.at("trees")) {
      Tree tree;
      tree.output_class = t.at("class").get<std::size_t>();
      if (tree.output_class >= model.bias_.size()) throw Error(where + ": tree class out of range");
      // Rows [feature, threshold, left, right, value]; feature -1 marks a leaf.
      for (const auto& row : t.at("nodes")) {
        if (!row.is_array() || row.size() != 5) throw Error(where + ": a tree node is not [feature, threshold, left, right, value]");
        Node n;
        n.feature = row[0].get<std::int32_t>();
        n.threshold = row[1].get<float>();
        n.left = row[2].get<std::uint32_t>();
        n.right = row[3].get<std::uint32_t>();
        n.value = row[4].get<float>();
        tree.nodes.push_back(n);
      }
      if (tree.nodes.empty()) throw Error(where + ": a tree has no nodes");
      for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
        const Node& n = tree.nodes[i];
        if (!std::isfinite(n.threshold) || !std::isfinite(n.value)) throw Error(where + ": non-finite tree value");
        if (n.feature < 0) continue;
        if (static_cast<std::size_t>(n.feature) >= num_features) {
          throw Error(where + ": a tree splits on feature " + std::to_string(n.feature) + " of " +
                      std::to_string(num_features));
        }
        // Children strictly after their parent: evaluation always terminates.
        if (n.left <= i || n.right <= i || n.left >= tree.nodes.size() || n.right >= tree.nodes.size()) {
          throw Error(where + ": a tree node points outside its tree or backwards");
        }
      }
      model.trees_.push_back(std::move(tree));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what());
  }
  for (const float b : model.bias_) {
    if (!std::isfinite(b)) throw Error(where + ": non-finite bias");
  }
  return model;
}

std::vector<float> GradientBoostedTrees::probabilities(std::span<const float> features) const {
  std::vector<double> logits(bias_.begin(), bias_.end());
  for (const Tree& tree : trees_) {
    std::uint32_t i = 0;
    while (tree.nodes[i].feature >= 0) {
      const Node& n = tree.nodes[i];
      i = features[static_cast<std::size_t>(n.feature)] <= n.threshold ? n.left : n.right;
    }
    logits[tree.output_class] += tree.nodes[i].value;
  }
  double max = logits[0];
  for (const double l : logits) max = std::max(max, l);
  double sum = 0;
  for (auto& l : logits) sum += (l = std::exp(l - max));
  std::vector<float> out;
  for (const double l : logits) out.push_back(static_cast<float>(l / sum));
  return out;
}

}  // namespace geoalign::match
