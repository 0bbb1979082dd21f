#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "match/gbdt.h"

namespace geoalign::match {

// Finds every tree's leaf for a block of rows without walking the trees (QuickScorer,
// Lucchese et al., SIGIR 2015, in its vectorized form with one row per vector lane).
// Feature by feature, in threshold order, it visits the tests some row fails (value
// above threshold: the walk would go right), and for the rows that fail it strikes from
// the test's tree the leaves of its left branch. The leaf a walk would reach is the
// leftmost one left standing. Each test costs a few vector instructions for 8 or 16 rows,
// none waiting on the one before, where a walk's every step waits on the last and a walk
// in lockstep pays each tree's full depth (11 on average for the shipped head) for paths
// of 5 or 6.
class ThresholdScan {
 public:
  // None when a tree has more than 32 leaves.
  static std::optional<ThresholdScan> build(const std::vector<GradientBoostedTrees::FileTree>& trees,
                                            std::size_t num_features);
  // Whether add_leaves can run: it needs AVX2 (16 rows at a time with AVX-512, else 8).
  static bool runs_here();

  // For `rows` rows of num_features values (none NaN) at `features`, adds each tree's leaf
  // value to logits[row * classes + its class], in the order of `trees`: the same sums as a
  // walk, to the bit.
  void add_leaves(const float* features, std::size_t rows, std::size_t classes, double* logits) const;

 private:
  // add_leaves for one vector width: Lanes rows per block.
  template <std::size_t Lanes>
  void add_block_leaves(const float* features, std::size_t rows, std::size_t classes, double* logits) const;

  std::size_t num_features_ = 0;
  // Per feature, its tests in increasing threshold order, from test_begin_[f] up to a +inf
  // that ends the scan.
  std::vector<std::uint32_t> test_begin_;
  std::vector<float> test_threshold_;
  std::vector<std::uint32_t> test_tree_;
  std::vector<std::uint32_t> test_left_;  // the leaves of the test's left branch, as bits
  // Per tree: its class, and where its leaf values (left to right) start in leaf_value_.
  std::vector<std::uint32_t> tree_class_, tree_leaves_;
  std::vector<float> leaf_value_;
};

}  // namespace geoalign::match
