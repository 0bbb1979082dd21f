#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace geoalign::match {

// Gradient-boosted regression trees for multi-class scores (as scikit-learn's
// HistGradientBoostingClassifier exports them through tools/train/train_match_head.py):
// class k's logit is bias[k] plus the leaf values of its trees, probabilities a softmax.
class GradientBoostedTrees {
 public:
  // Throws Error naming `where` for a malformed model: bad node references, cycles,
  // features out of range, non-finite values.
  static GradientBoostedTrees from_json(const nlohmann::json& j, std::size_t num_features, const std::string& where);

  std::vector<float> probabilities(std::span<const float> features) const;
  std::size_t num_classes() const { return bias_.size(); }
  std::size_t num_trees() const { return trees_.size(); }

 private:
  struct Node {
    std::int32_t feature = -1;  // -1: a leaf
    float threshold = 0;        // go left when feature <= threshold
    std::uint32_t left = 0, right = 0;
    float value = 0;
  };
  struct Tree {
    std::size_t output_class = 0;
    std::vector<Node> nodes;  // nodes[0] is the root; children come after their parent
  };

  std::vector<float> bias_;
  std::vector<Tree> trees_;
};

}  // namespace geoalign::match
