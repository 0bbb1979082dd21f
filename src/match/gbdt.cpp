#include "match/gbdt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "backend/cpu/parallel.h"
#include "geoalign/error.h"
#include "match/threshold_scan.h"
#include "match/tree_list_reader.h"
#include "model/json_file.h"

namespace geoalign::match {

namespace {

constexpr std::size_t kMaxNodes = 0xFFFF;

void softmax(const double* logits, std::size_t n, float* out) {
  const double max = *std::max_element(logits, logits + n);
  double sum = 0;
  for (std::size_t k = 0; k < n; ++k) sum += std::exp(logits[k] - max);
  for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<float>(std::exp(logits[k] - max) / sum);
}

// nlohmann's get<Int>() narrows silently (2^32 becomes 0, 2.7 becomes 2).
template <typename Int>
std::optional<Int> whole_number(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (std::in_range<Int>(u)) return static_cast<Int>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (std::in_range<Int>(i)) return static_cast<Int>(i);
  }
  return std::nullopt;
}

GradientBoostedTrees::FileTree tree_from_json(const nlohmann::json& t, const std::string& file, std::size_t index) {
  // Built only for a message: a shipped head has tens of thousands of nodes.
  const auto place = [&] { return file + ": trees[" + std::to_string(index) + "]"; };
  GradientBoostedTrees::FileTree tree;
  const auto output_class = whole_number<std::uint32_t>(t.at("class"));
  if (!output_class) throw Error(place() + ".class is not a class number");
  tree.output_class = *output_class;
  const auto& nodes = t.at("nodes");
  if (!nodes.is_array()) throw Error(place() + ".nodes is not an array");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& row = nodes[i];
    const bool shaped = row.is_array() && row.size() == 5 && row[1].is_number() && row[4].is_number();
    const auto feature = shaped ? whole_number<std::int32_t>(row[0]) : std::nullopt;
    const auto left = shaped ? whole_number<std::uint32_t>(row[2]) : std::nullopt;
    const auto right = shaped ? whole_number<std::uint32_t>(row[3]) : std::nullopt;
    if (!feature || !left || !right) {
      throw Error(place() + ".nodes[" + std::to_string(i) +
                  "] is not [feature, threshold, left, right, value] with whole numbers in range");
    }
    tree.nodes.push_back(
        {*feature, GradientBoostedTrees::threshold_from_file(row[1].get<double>()), *left, *right, row[4].get<float>()});
  }
  return tree;
}

}  // namespace

GradientBoostedTrees GradientBoostedTrees::from_json(const nlohmann::json& j, const std::vector<FileTree>& trees,
                                                     std::size_t num_features, const std::string& where) {
  GradientBoostedTrees model;
  model.num_features_ = num_features;
  if (num_features >= kMaxNodes) throw Error(where + ": more than 65534 features");
  try {
    model.bias_ = j.at("bias").get<std::vector<float>>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what());
  }
  if (model.bias_.empty()) throw Error(where + ": \"bias\" is empty");
  for (const float b : model.bias_) {
    if (!std::isfinite(b)) throw Error(where + ": non-finite bias");
  }
  std::vector<Tree> compacted;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    const std::string tree_where = where + ": trees[" + std::to_string(i) + "]";
    if (trees[i].output_class >= model.bias_.size()) throw Error(tree_where + ": class out of range");
    compacted.push_back(compact(trees[i].output_class, trees[i].nodes, num_features, tree_where));
  }
  std::vector<std::size_t> order(trees.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return compacted[a].depth < compacted[b].depth; });
  std::vector<FileTree> ordered;
  for (const std::size_t i : order) {
    model.trees_.push_back(std::move(compacted[i]));
    ordered.push_back(trees[i]);
  }
  if (auto scan = ThresholdScan::build(ordered, num_features)) model.scan_ = std::make_shared<const ThresholdScan>(std::move(*scan));
  return model;
}

std::vector<GradientBoostedTrees::FileTree> GradientBoostedTrees::trees_of(const nlohmann::json& j,
                                                                          const std::string& where) {
  std::vector<FileTree> trees;
  try {
    for (const auto& t : j.at("trees")) trees.push_back(tree_from_json(t, where, trees.size()));
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what());
  }
  return trees;
}

GradientBoostedTrees GradientBoostedTrees::from_json(const nlohmann::json& j, std::size_t num_features,
                                                     const std::string& where) {
  return from_json(j, trees_of(j, where), num_features, where);
}

float GradientBoostedTrees::threshold_from_file(double t) {
  float f = static_cast<float>(t);
  if (static_cast<double>(f) > t) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}

nlohmann::json GradientBoostedTrees::read_file(const std::filesystem::path& file, std::vector<FileTree>& trees) {
  const std::string where = file.string();
  {
    // The trainer's own layout, read without a document for the trees; anything else
    // (and any error, so that messages name the file's own bytes) takes the route below.
    std::string text = model::read_whole_file(file);
    if (const auto span = read_tree_list(text, trees)) {
      text.replace(span->begin, span->end - span->begin, "[]");
      try {
        nlohmann::json rest = nlohmann::json::parse(text);
        const auto left = rest.find("trees");
        if (left != rest.end() && left->is_array() && left->empty()) return rest;
      } catch (const nlohmann::json::exception&) {
      }
      trees.clear();
    }
  }
  // Depths in nlohmann's callback: 1 for the top object's members, 2 for the trees, 3
  // for a tree's members. A tree is taken whole when its object ends.
  bool in_trees = false;
  auto take_trees = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 1 && event == Event::key) in_trees = parsed == "trees";
    if (!in_trees || depth != 2 || event != Event::object_end) return true;
    try {
      trees.push_back(tree_from_json(parsed, where, trees.size()));
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": " + e.what());
    }
    return false;
  };
  nlohmann::json rest = model::read_json_file(file, take_trees);
  const auto left = rest.find("trees");
  if (left == rest.end() || !left->is_array()) throw Error(where + ": no \"trees\" array");
  if (!left->empty()) throw Error(where + ": a tree is not an object {\"class\": ..., \"nodes\": [...]}");
  return rest;
}

GradientBoostedTrees::Tree GradientBoostedTrees::compact(std::size_t output_class, const std::vector<FileNode>& nodes,
                                                         std::size_t sentinel, const std::string& where) {
  if (nodes.empty()) throw Error(where + ": a tree has no nodes");
  if (nodes.size() > kMaxNodes) throw Error(where + ": a tree has more than 65535 nodes");
  std::vector<bool> has_parent(nodes.size(), false);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const FileNode& n = nodes[i];
    if (!std::isfinite(n.threshold) || !std::isfinite(n.value)) throw Error(where + ": non-finite tree value");
    if (n.feature < 0) continue;
    if (static_cast<std::size_t>(n.feature) >= sentinel) {
      throw Error(where + ": a tree splits on feature " + std::to_string(n.feature) + " of " + std::to_string(sentinel));
    }
    // Children strictly after their parent: every node is reached at most once, and
    // evaluation always terminates.
    if (n.left <= i || n.right <= i || n.left >= nodes.size() || n.right >= nodes.size()) {
      throw Error(where + ": a tree node points outside its tree or backwards");
    }
    if (has_parent[n.left] || has_parent[n.right] || n.left == n.right) throw Error(where + ": a tree node has two parents");
    has_parent[n.left] = has_parent[n.right] = true;
  }
  Tree tree;
  tree.output_class = output_class;
  // Breadth first from the root; `order` lists file indices, `depth` their depths.
  std::vector<std::uint32_t> order{0};
  std::vector<std::size_t> depth{0};
  tree.nodes.reserve(nodes.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const FileNode& n = nodes[order[k]];
    Node out;
    if (n.feature < 0) {
      out.threshold = n.value;
      out.feature = static_cast<std::uint16_t>(sentinel);
      out.left = static_cast<std::uint16_t>(k);
      tree.depth = std::max(tree.depth, depth[k]);
    } else {
      out.threshold = n.threshold;
      out.feature = static_cast<std::uint16_t>(n.feature);
      out.left = static_cast<std::uint16_t>(order.size());
      order.push_back(n.left);
      order.push_back(n.right);
      depth.push_back(depth[k] + 1);
      depth.push_back(depth[k] + 1);
    }
    tree.nodes.push_back(out);
  }
  return tree;
}

void GradientBoostedTrees::walk_rows(const float* features, std::size_t rows, double* logits) const {
  const std::size_t classes = bias_.size();
  // Each row with the sentinel column that leaves test.
  const std::size_t width = num_features_ + 1;
  std::vector<float> x(rows * width, -std::numeric_limits<float>::infinity());
  for (std::size_t r = 0; r < rows; ++r) std::copy_n(features + r * num_features_, num_features_, &x[r * width]);
  // Walks kLanes trees side by side for each row, each for the group's greatest depth
  // (leaves absorb the extra steps): no branch depends on the data, and the lanes' node
  // loads do not depend on one another, so they overlap.
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
    // Two rows at a time: twice the independent loads in flight.
    for (std::size_t r = 0; r < rows; r += 2) {
      const std::size_t r2 = std::min(r + 1, rows - 1);
      const float* row = &x[r * width];
      const float* row2 = &x[r2 * width];
      std::uint32_t at[kLanes] = {}, at2[kLanes] = {};
      for (std::size_t step = 0; step < steps; ++step) {
        for (std::size_t k = 0; k < kLanes; ++k) {
          const Node n = roots[k][at[k]];
          const Node n2 = roots[k][at2[k]];
          at[k] = n.left + static_cast<std::uint32_t>(!(row[n.feature] <= n.threshold));
          at2[k] = n2.left + static_cast<std::uint32_t>(!(row2[n2.feature] <= n2.threshold));
        }
      }
      for (std::size_t k = 0; k < lanes; ++k) {
        logits[r * classes + group[k].output_class] += roots[k][at[k]].threshold;
      }
      if (r2 != r) {
        for (std::size_t k = 0; k < lanes; ++k) logits[r2 * classes + group[k].output_class] += roots[k][at2[k]].threshold;
      }
    }
  }
}

void GradientBoostedTrees::predict_rows(const float* features, std::size_t rows, float* probabilities) const {
  const std::size_t classes = bias_.size();
  std::vector<double> logits(rows * classes);
  for (std::size_t r = 0; r < rows; ++r) std::copy(bias_.begin(), bias_.end(), logits.begin() + r * classes);
  // Both ways sum a row's leaves in tree order: the same probabilities to the bit. The
  // scan takes no NaN (missing values), which only the walk sends right.
  if (scan_ && ThresholdScan::runs_here() && std::none_of(features, features + rows * num_features_, [](float v) { return std::isnan(v); })) {
    scan_->add_leaves(features, rows, classes, logits.data());
  } else {
    walk_rows(features, rows, logits.data());
  }
  for (std::size_t r = 0; r < rows; ++r) softmax(&logits[r * classes], classes, probabilities + r * classes);
}

float GradientBoostedTrees::walk(const Tree& tree, const float* row, std::size_t reversed,
                                 std::vector<std::size_t>* tested) const {
  std::uint32_t at = 0;
  for (;;) {
    const Node n = tree.nodes[at];
    if (n.feature == num_features_) return n.threshold;  // a leaf (compact() keeps its value there)
    if (tested && std::find(tested->begin(), tested->end(), n.feature) == tested->end()) tested->push_back(n.feature);
    const bool right = !(row[n.feature] <= n.threshold) != (n.feature == reversed);
    at = n.left + static_cast<std::uint32_t>(right);
  }
}

void GradientBoostedTrees::probabilities_with_tests_reversed(std::span<const float> row, std::span<float> out) const {
  const std::size_t classes = bias_.size();
  if (row.size() != num_features_ || out.size() != num_features_ * classes) {
    throw Error("boosted trees: expected a row of " + std::to_string(num_features_) + " features and room for " +
                std::to_string(num_features_) + " x " + std::to_string(classes) + " probabilities");
  }
  std::vector<float> x(row.begin(), row.end());
  x.push_back(-std::numeric_limits<float>::infinity());  // the sentinel column
  std::vector<double> logits(bias_.begin(), bias_.end());
  // Reversing a feature changes only the trees whose path tests it: a few per tree, so
  // this costs a few plain predictions, not one per feature.
  std::vector<double> shifts(num_features_ * classes, 0.0);
  std::vector<std::size_t> tested;
  for (const Tree& tree : trees_) {
    tested.clear();
    const float leaf = walk(tree, x.data(), num_features_, &tested);
    logits[tree.output_class] += leaf;
    for (const std::size_t f : tested) shifts[f * classes + tree.output_class] += walk(tree, x.data(), f) - leaf;
  }
  std::vector<double> shifted(classes);
  for (std::size_t f = 0; f < num_features_; ++f) {
    for (std::size_t k = 0; k < classes; ++k) shifted[k] = logits[k] + shifts[f * classes + k];
    softmax(shifted.data(), classes, out.data() + f * classes);
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
