#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace geoalign::match {

class ThresholdScan;

// Gradient-boosted regression trees for multi-class scores (as scikit-learn's
// HistGradientBoostingClassifier exports them through tools/train/train_match_head.py):
// class k's logit is bias[k] plus the leaf values of its trees, probabilities a softmax.
class GradientBoostedTrees {
 public:
  // The trainer's split thresholds are doubles. The largest float not above one keeps
  // every float feature on the same side as in the trainer; the nearest float would send
  // a value equal to a threshold rounded up the other way.
  static float threshold_from_file(double t);

  // A node as the file lists it: [feature, threshold, left, right, value], feature -1 for a leaf.
  struct FileNode {
    std::int32_t feature = -1;
    float threshold = 0;
    std::uint32_t left = 0, right = 0;
    float value = 0;
  };
  struct FileTree {
    std::size_t output_class = 0;
    std::vector<FileNode> nodes;
  };

  // From {"bias": [...], "trees": [{"class": k, "nodes": [[feature, threshold, left,
  // right, value], ...]}, ...]}. Throws Error naming `where` for a malformed model: bad
  // node references, cycles, features out of range, non-finite values.
  static GradientBoostedTrees from_json(const nlohmann::json& j, std::size_t num_features, const std::string& where);
  // A document's "trees", as its nodes are written (no checks beyond their shape).
  static std::vector<FileTree> trees_of(const nlohmann::json& j, const std::string& where);
  // The same for a document whose trees read_file() took out as it parsed them.
  static GradientBoostedTrees from_json(const nlohmann::json& j, const std::vector<FileTree>& trees,
                                        std::size_t num_features, const std::string& where);
  // Reads a JSON file with such a "trees" member, converting each tree as it is parsed
  // rather than building it into the document (the shipped head's 4.7 MB of trees made
  // a 28 MB document); trees in the trainer's own layout are read straight from the text
  // (read_tree_list). Returns the file's other members, "trees" left empty.
  static nlohmann::json read_file(const std::filesystem::path& file, std::vector<FileTree>& trees);

  // `features` holds `rows` rows of num_features() values; `probabilities` receives
  // rows x num_classes(). Blocks of rows go to the thread pool; within a block, eight
  // trees at a time walk each row side by side, so their independent loads overlap.
  void predict(std::span<const float> features, std::size_t rows, std::span<float> probabilities) const;
  // What one row's prediction rests on: `out` receives num_features() x num_classes()
  // probabilities, row f those of the trees walked with every test on feature f
  // reversed (the other branch wherever f decides). A feature no test on the row's paths
  // reads keeps the row's own probabilities.
  void probabilities_with_tests_reversed(std::span<const float> row, std::span<float> out) const;
  std::size_t num_features() const { return num_features_; }
  std::size_t num_classes() const { return bias_.size(); }
  std::size_t num_trees() const { return trees_.size(); }

 private:
  // 8 bytes, so a group of trees stays in L1 while a block of rows walks it. A node's
  // children sit side by side (right = left + 1). A leaf keeps its value in `threshold`
  // and leads back to itself: it tests the -inf column that predict_rows appends to
  // every row, which always goes left.
  struct Node {
    float threshold = 0;  // go left when feature <= threshold (NaN goes right)
    std::uint16_t feature = 0;
    std::uint16_t left = 0;
  };
  struct Tree {
    std::size_t output_class = 0;
    std::size_t depth = 0;    // edges on the longest root-to-leaf path
    std::vector<Node> nodes;  // nodes[0] is the root
  };
  // The nodes as the file lists them, renumbered breadth first so siblings are adjacent.
  static Tree compact(std::size_t output_class, const std::vector<FileNode>& nodes, std::size_t sentinel,
                      const std::string& where);

  void predict_rows(const float* features, std::size_t rows, float* probabilities) const;
  // predict_rows's walk: adds each tree's leaf to the rows' logits, in tree order.
  void walk_rows(const float* features, std::size_t rows, double* logits) const;
  // One tree's leaf value for a row with its sentinel column, reversing every test on
  // feature `reversed` (none when it is out of range); also lists the features its path
  // tests when `tested` is given.
  float walk(const Tree& tree, const float* row, std::size_t reversed, std::vector<std::size_t>* tested = nullptr) const;

  std::size_t num_features_ = 0;
  std::vector<float> bias_;
  std::vector<Tree> trees_;  // ordered by depth, so trees walked side by side take similar steps
  // The same trees, in the same order, for rows without NaN (match/threshold_scan.h);
  // null when a tree has too many leaves for it.
  std::shared_ptr<const ThresholdScan> scan_;
};

}  // namespace geoalign::match
