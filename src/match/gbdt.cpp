#include "match/gbdt.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "backend/cpu/parallel.h"
#include "geoalign/error.h"

namespace geoalign::match {

GradientBoostedTrees GradientBoostedTrees::from_json(const nlohmann::json& j, std::size_t num_features,
                                                     const std::string& where) {
  GradientBoostedTrees model;
  model.num_features_ = num_features;
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
      make_leaves_absorbing(tree);
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

void GradientBoostedTrees::make_leaves_absorbing(Tree& tree) {
  std::vector<std::size_t> depth(tree.nodes.size(), 0);
  for (std::uint32_t i = 0; i < tree.nodes.size(); ++i) {
    Node& n = tree.nodes[i];
    if (n.feature < 0) {
      tree.depth = std::max(tree.depth, depth[i]);
      n.feature = 0;
      n.left = n.right = i;
    } else {
      depth[n.left] = depth[n.right] = depth[i] + 1;
    }
  }
}

void GradientBoostedTrees::predict_rows(const float* features, std::size_t rows, float* probabilities) const {
  const std::size_t classes = bias_.size();
  std::vector<double> logits(rows * classes);
  for (std::size_t r = 0; r < rows; ++r) std::copy(bias_.begin(), bias_.end(), logits.begin() + r * classes);
  // Walks kLanes trees side by side for each row, each for the group's greatest depth
  // (leaves absorb the extra steps): no branch depends on the data, and the lanes' node
  // loads do not depend on one another, so their cache misses overlap.
  constexpr std::size_t kLanes = 8;
  for (std::size_t first = 0; first < trees_.size(); first += kLanes) {
    const std::size_t lanes = std::min(kLanes, trees_.size() - first);
    const Tree* group = trees_.data() + first;
    const Node* roots[kLanes];
    std::size_t steps = 0;
    for (std::size_t k = 0; k < kLanes; ++k) {
      const Tree& tree = group[std::min(k, lanes - 1)];
      roots[k] = tree.nodes.data();
      steps = std::max(steps, tree.depth);
    }
    for (std::size_t r = 0; r < rows; ++r) {
      const float* x = features + r * num_features_;
      std::uint32_t at[kLanes] = {};
      for (std::size_t step = 0; step < steps; ++step) {
        for (std::size_t k = 0; k < kLanes; ++k) {
          const Node& n = roots[k][at[k]];
          at[k] = x[n.feature] <= n.threshold ? n.left : n.right;
        }
      }
      for (std::size_t k = 0; k < lanes; ++k) logits[r * classes + group[k].output_class] += roots[k][at[k]].value;
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const double* l = &logits[r * classes];
    const double max = *std::max_element(l, l + classes);
    double sum = 0;
    for (std::size_t k = 0; k < classes; ++k) sum += std::exp(l[k] - max);
    for (std::size_t k = 0; k < classes; ++k) probabilities[r * classes + k] = static_cast<float>(std::exp(l[k] - max) / sum);
  }
}

void GradientBoostedTrees::predict(std::span<const float> features, std::size_t rows,
                                   std::span<float> probabilities) const {
  if (features.size() != rows * num_features_ || probabilities.size() != rows * bias_.size()) {
    throw Error("boosted trees: expected " + std::to_string(rows) + " rows of " + std::to_string(num_features_) +
                " features");
  }
  // Blocks of rows per thread: a block is enough rows to hide each walk's cache misses.
  constexpr std::size_t kBlock = 16;
  const std::size_t blocks = (rows + kBlock - 1) / kBlock;
  cpu::parallel_for(static_cast<std::int64_t>(blocks), [&](std::int64_t b) {
    const std::size_t first = static_cast<std::size_t>(b) * kBlock;
    const std::size_t count = std::min(kBlock, rows - first);
    predict_rows(features.data() + first * num_features_, count, probabilities.data() + first * bias_.size());
  });
}

}  // namespace geoalign::match
