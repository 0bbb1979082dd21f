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

  // `features` holds `rows` rows of num_features() values; `probabilities` receives
  // rows x num_classes(). Tree by tree over all rows, so each tree stays in cache while
  // the rows' independent walks overlap.
  void predict(std::span<const float> features, std::size_t rows, std::span<float> probabilities) const;
  std::size_t num_features() const { return num_features_; }
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
    std::size_t depth = 0;    // edges on the longest root-to-leaf path
    std::vector<Node> nodes;  // nodes[0] is the root; children come after their parent
  };
  // After validation, leaves are rewritten to test feature 0 and lead back to themselves,
  // so a walk can take a fixed number of steps without asking whether it has arrived.
  static void make_leaves_absorbing(Tree& tree);

  void predict_rows(const float* features, std::size_t rows, float* probabilities) const;

  std::size_t num_features_ = 0;
  std::vector<float> bias_;
  std::vector<Tree> trees_;
};

}  // namespace geoalign::match
