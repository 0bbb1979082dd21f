#include "match/threshold_scan.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "backend/cpu/kernel_targets.h"

namespace geoalign::match {

namespace {

struct Test {
  float threshold;
  std::uint32_t tree, left;
};

// What a block of Lanes rows needs besides the scan's tables: the block transposed
// (feature-major, one row per lane) with each feature's greatest value, and per tree
// and row the leaves still standing.
template <std::size_t Lanes>
struct Block {
  std::vector<float> x, x_max;
  std::vector<std::uint32_t> standing;
};

// The vector part, one instantiation per instruction set: for each feature, every test
// whose threshold is below the block's greatest value, applied to the lanes whose value
// exceeds it.
template <std::size_t Lanes>
struct Strike;

template <>
struct Strike<16> {
  GEOALIGN_TARGET_AVX512 static void run(const std::uint32_t* begin, std::size_t features, const float* threshold,
                                         const std::uint32_t* tree, const std::uint32_t* left, const float* x,
                                         const float* x_max, std::uint32_t* standing) {
    for (std::size_t f = 0; f < features; ++f) {
      const __m512 v = _mm512_loadu_ps(x + f * 16);
      for (std::uint32_t i = begin[f]; threshold[i] < x_max[f]; ++i) {
        const __mmask16 fails = _mm512_cmp_ps_mask(v, _mm512_set1_ps(threshold[i]), _CMP_GT_OQ);
        std::uint32_t* s = standing + static_cast<std::size_t>(tree[i]) * 16;
        const __m512i bits = _mm512_loadu_si512(s);
        _mm512_storeu_si512(s, _mm512_mask_andnot_epi32(bits, fails, _mm512_set1_epi32(static_cast<int>(left[i])), bits));
      }
    }
  }
};

template <>
struct Strike<8> {
  GEOALIGN_TARGET_AVX2 static void run(const std::uint32_t* begin, std::size_t features, const float* threshold,
                                       const std::uint32_t* tree, const std::uint32_t* left, const float* x,
                                       const float* x_max, std::uint32_t* standing) {
    for (std::size_t f = 0; f < features; ++f) {
      const __m256 v = _mm256_loadu_ps(x + f * 8);
      for (std::uint32_t i = begin[f]; threshold[i] < x_max[f]; ++i) {
        const __m256i fails = _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_set1_ps(threshold[i]), _CMP_GT_OQ));
        auto* s = reinterpret_cast<__m256i*>(standing + static_cast<std::size_t>(tree[i]) * 8);
        const __m256i struck = _mm256_and_si256(fails, _mm256_set1_epi32(static_cast<int>(left[i])));
        _mm256_storeu_si256(s, _mm256_andnot_si256(struck, _mm256_loadu_si256(s)));
      }
    }
  }
};

}  // namespace

std::optional<ThresholdScan> ThresholdScan::build(const std::vector<GradientBoostedTrees::FileTree>& trees,
                                                  std::size_t num_features) {
  ThresholdScan scan;
  scan.num_features_ = num_features;
  std::vector<std::vector<Test>> tests(num_features);
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const auto& nodes = trees[t].nodes;
    // Also bounds the recursion below: 32 leaves make at most 63 nodes.
    if (std::count_if(nodes.begin(), nodes.end(), [](const auto& n) { return n.feature < 0; }) > 32) return std::nullopt;
    scan.tree_class_.push_back(static_cast<std::uint32_t>(trees[t].output_class));
    scan.tree_leaves_.push_back(static_cast<std::uint32_t>(scan.leaf_value_.size()));
    // Numbers the leaves left to right, and notes each test's left branch.
    std::uint32_t leaves = 0;
    auto number = [&](auto&& self, std::uint32_t i) -> void {
      const auto& n = nodes[i];
      if (n.feature < 0) {
        ++leaves;
        scan.leaf_value_.push_back(n.value);
        return;
      }
      const std::uint32_t first = leaves;
      self(self, n.left);
      const std::uint32_t width = leaves - first;  // below 32: the right branch has a leaf too
      tests[static_cast<std::size_t>(n.feature)].push_back(
          {n.threshold, static_cast<std::uint32_t>(t), ((1u << width) - 1) << first});
      self(self, n.right);
    };
    number(number, 0);
  }
  scan.test_begin_.push_back(0);
  for (auto& feature_tests : tests) {
    std::stable_sort(feature_tests.begin(), feature_tests.end(),
                     [](const Test& a, const Test& b) { return a.threshold < b.threshold; });
    // The closing +inf: no value is above it, +inf included.
    feature_tests.push_back({std::numeric_limits<float>::infinity(), 0, 0});
    for (const Test& test : feature_tests) {
      scan.test_threshold_.push_back(test.threshold);
      scan.test_tree_.push_back(test.tree);
      scan.test_left_.push_back(test.left);
    }
    scan.test_begin_.push_back(static_cast<std::uint32_t>(scan.test_threshold_.size()));
  }
  return scan;
}

template <std::size_t Lanes>
void ThresholdScan::add_block_leaves(const float* features, std::size_t rows, std::size_t classes,
                                     double* logits) const {
  thread_local Block<Lanes> block;
  block.x.resize(num_features_ * Lanes);
  block.x_max.resize(num_features_);
  for (std::size_t first = 0; first < rows; first += Lanes) {
    const std::size_t count = std::min(Lanes, rows - first);
    // A short block repeats its last row in the spare lanes; their leaves are not added.
    for (std::size_t f = 0; f < num_features_; ++f) {
      float most = -std::numeric_limits<float>::infinity();
      for (std::size_t r = 0; r < Lanes; ++r) {
        const float v = features[(first + std::min(r, count - 1)) * num_features_ + f];
        block.x[f * Lanes + r] = v;
        most = std::max(most, v);
      }
      block.x_max[f] = most;
    }
    block.standing.assign(tree_class_.size() * Lanes, ~0u);
    Strike<Lanes>::run(test_begin_.data(), num_features_, test_threshold_.data(), test_tree_.data(), test_left_.data(),
                       block.x.data(), block.x_max.data(), block.standing.data());
    for (std::size_t t = 0; t < tree_class_.size(); ++t) {
      const float* values = leaf_value_.data() + tree_leaves_[t];
      for (std::size_t r = 0; r < count; ++r) {
        logits[(first + r) * classes + tree_class_[t]] += values[std::countr_zero(block.standing[t * Lanes + r])];
      }
    }
  }
}

bool ThresholdScan::runs_here() { return cpu::isa_at_least(cpu::Isa::Avx2); }

void ThresholdScan::add_leaves(const float* features, std::size_t rows, std::size_t classes, double* logits) const {
  if (cpu::isa_at_least(cpu::Isa::Avx512Bf16)) {
    add_block_leaves<16>(features, rows, classes, logits);
  } else {
    add_block_leaves<8>(features, rows, classes, logits);
  }
}

}  // namespace geoalign::match
