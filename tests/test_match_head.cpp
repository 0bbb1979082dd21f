// The feature-augmented match head: boosted trees, pair features, loading, and the
// shipped default model on pairs written for this test.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "geoalign/matcher.h"
#include "geoalign/parser.h"
#include "match/gbdt.h"
#include "match/pair_features.h"
#include "support/temp_dir.h"

namespace geoalign::match {
namespace {

using namespace geoalign::testing;

// Two classes, two features. Tree for class 1: x0 <= 0.5 ? -1 : (x1 <= 2 ? 0.5 : 2).
nlohmann::json small_trees() {
  return nlohmann::json::parse(R"({
    "bias": [0.0, 0.25],
    "trees": [
      {"class": 1, "nodes": [[0, 0.5, 1, 2, 0], [-1, 0, 0, 0, -1.0], [1, 2.0, 3, 4, 0],
                             [-1, 0, 0, 0, 0.5], [-1, 0, 0, 0, 2.0]]},
      {"class": 0, "nodes": [[-1, 0, 0, 0, 0.1]]}
    ]})");
}

float class1(const GradientBoostedTrees& t, float x0, float x1) {
  const float x[] = {x0, x1};
  float p[2];
  t.predict(x, 1, p);
  return p[1];
}

float sigmoid(double z) { return static_cast<float>(1.0 / (1.0 + std::exp(-z))); }

TEST(GradientBoostedTrees, SumsLeavesPerClassAndSoftmaxes) {
  const auto t = GradientBoostedTrees::from_json(small_trees(), 2, "t.json");
  EXPECT_EQ(t.num_trees(), 2u);
  EXPECT_NEAR(class1(t, 0.5f, 9.0f), sigmoid(0.25 - 1.0 - 0.1), 1e-6);  // <= goes left
  EXPECT_NEAR(class1(t, 0.6f, 2.0f), sigmoid(0.25 + 0.5 - 0.1), 1e-6);
  EXPECT_NEAR(class1(t, 0.6f, 2.5f), sigmoid(0.25 + 2.0 - 0.1), 1e-6);
}

// Random trees of uneven depth, walked by a plain recursive reference over the JSON:
// the batched, lockstep walk must give the same probabilities for every row, whatever
// the number of rows and trees (not a multiple of the lane count), and with missing values.
TEST(GradientBoostedTrees, BatchedWalkEqualsAPlainWalk) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  constexpr int kFeatures = 5, kClasses = 3;
  nlohmann::json j = {{"bias", {0.1, -0.2, 0.3}}, {"trees", nlohmann::json::array()}};
  for (int t = 0; t < 29; ++t) {
    nlohmann::json nodes = nlohmann::json::array();
    // Grow by splitting a random leaf, so depths vary; children always follow parents.
    nodes.push_back({-1, 0.0, 0, 0, unit(rng) - 0.5f});
    for (int split = 0; split < 1 + t % 9; ++split) {
      std::vector<std::size_t> leaves;
      for (std::size_t i = 0; i < nodes.size(); ++i) if (nodes[i][0] == -1) leaves.push_back(i);
      const std::size_t leaf = leaves[rng() % leaves.size()];
      const auto left = nodes.size();
      nodes.push_back({-1, 0.0, 0, 0, unit(rng) - 0.5f});
      nodes.push_back({-1, 0.0, 0, 0, unit(rng) - 0.5f});
      nodes[leaf] = {static_cast<int>(rng() % kFeatures), unit(rng), left, left + 1, 0.0};
    }
    j["trees"].push_back({{"class", t % kClasses}, {"nodes", nodes}});
  }
  const auto trees = GradientBoostedTrees::from_json(j, kFeatures, "random.json");
  for (std::size_t rows : {1u, 7u, 16u, 37u}) {
    std::vector<float> x(rows * kFeatures);
    // Some missing values: NaN fails every `<=`, so it goes right.
    for (float& v : x) v = unit(rng) < 0.1f ? std::numeric_limits<float>::quiet_NaN() : unit(rng);
    std::vector<float> got(rows * kClasses);
    trees.predict(x, rows, got);
    for (std::size_t r = 0; r < rows; ++r) {
      double logits[kClasses] = {0.1, -0.2, 0.3};
      for (const auto& tree : j["trees"]) {
        std::size_t i = 0;
        while (tree["nodes"][i][0].get<int>() >= 0) {
          const auto& n = tree["nodes"][i];
          i = x[r * kFeatures + n[0].get<std::size_t>()] <= n[1].get<float>() ? n[2].get<std::size_t>()
                                                                               : n[3].get<std::size_t>();
        }
        logits[tree["class"].get<std::size_t>()] += tree["nodes"][i][4].get<float>();
      }
      const double max = *std::max_element(logits, logits + kClasses);
      double sum = 0;
      for (double l : logits) sum += std::exp(l - max);
      for (int k = 0; k < kClasses; ++k) {
        EXPECT_NEAR(got[r * kClasses + k], std::exp(logits[k] - max) / sum, 1e-6) << "rows " << rows << " row " << r;
      }
    }
  }
}

void expect_tree_error(const std::function<void(nlohmann::json&)>& damage, const std::string& fragment) {
  auto j = small_trees();
  damage(j);
  try {
    GradientBoostedTrees::from_json(j, 2, "t.json");
    FAIL() << "accepted " << j.dump();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(GradientBoostedTrees, MalformedModelsAreRejected) {
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"][2][2] = 1; }, "backwards");
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"][0][2] = 99; }, "outside its tree");
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"][2][3] = 2; }, "outside its tree");
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"][2][3] = 3; }, "two parents");
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"][2] = {1, 2.0, 1, 4, 0}; }, "backwards");
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"][0][0] = 7; }, "feature 7 of 2");
  expect_tree_error([](auto& j) { j["trees"][0]["class"] = 5; }, "class out of range");
  expect_tree_error([](auto& j) { j["trees"][1]["nodes"][0] = {1, 2}; }, "is not [feature");
  expect_tree_error([](auto& j) { j.erase("bias"); }, "t.json");
  expect_tree_error([](auto& j) { j["trees"][0]["nodes"] = nlohmann::json::array(); }, "no nodes");
}

// The streaming reader takes the trees out of the document as they are parsed; what it
// builds must equal the whole-document route, and a malformed "trees" must still fail.
TEST(GradientBoostedTrees, ReadingAFileEqualsParsingTheDocument) {
  TempDir dir;
  auto j = small_trees();
  j["format"] = "test";
  write_file(dir / "head.json", j.dump());
  std::vector<GradientBoostedTrees::FileTree> trees;
  const nlohmann::json rest = GradientBoostedTrees::read_file(dir / "head.json", trees);
  EXPECT_EQ(rest.at("format"), "test");
  EXPECT_TRUE(rest.at("trees").empty());
  ASSERT_EQ(trees.size(), 2u);
  const auto streamed = GradientBoostedTrees::from_json(rest, trees, 2, "head.json");
  const auto whole = GradientBoostedTrees::from_json(small_trees(), 2, "t.json");
  for (const auto& [x0, x1] : {std::pair{0.5f, 9.0f}, std::pair{0.6f, 2.0f}, std::pair{0.6f, 2.5f}}) {
    EXPECT_EQ(class1(streamed, x0, x1), class1(whole, x0, x1));
  }

  auto read_error = [&](const nlohmann::json& bad) {
    write_file(dir / "bad.json", bad.dump());
    std::vector<GradientBoostedTrees::FileTree> ignored;
    try {
      GradientBoostedTrees::read_file(dir / "bad.json", ignored);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto not_objects = small_trees();
  not_objects["trees"].push_back(5);
  EXPECT_NE(read_error(not_objects).find("a tree is not an object"), std::string::npos);
  auto no_trees = small_trees();
  no_trees.erase("trees");
  EXPECT_NE(read_error(no_trees).find("no \"trees\" array"), std::string::npos);
  auto short_node = small_trees();
  short_node["trees"][0]["nodes"][1] = {-1, 0};
  EXPECT_NE(read_error(short_node).find("is not [feature"), std::string::npos);
}

ParsedAddress parse(const AddressParser& parser, const char* text) { return parser.parse(text); }

std::size_t index_of(const std::string& name) {
  const auto& names = pair_feature_names();
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

TEST(PairFeatures, CompareElementsAcrossNumeralForms) {
  const auto parser = AddressParser::load(source_dir() / "models/default/parser");
  const auto same = pair_features(parse(parser, "杭州市西湖区文三路90号8号楼"), parse(parser, "杭州西湖区文三路九十号八号楼"));
  ASSERT_EQ(same.size(), pair_feature_names().size());
  EXPECT_EQ(same[index_of("road_equal")], 1.0f);
  EXPECT_EQ(same[index_of("roadno_digits_equal")], 1.0f);
  EXPECT_EQ(same[index_of("numbers_subset")], 1.0f);
  EXPECT_EQ(same[index_of("admin_same_district")], 1.0f);
  const auto other = pair_features(parse(parser, "杭州市西湖区文三路90号"), parse(parser, "杭州市西湖区文三路12号"));
  EXPECT_EQ(other[index_of("road_equal")], 1.0f);
  EXPECT_EQ(other[index_of("roadno_digits_equal")], 0.0f);
  for (const float v : other) EXPECT_TRUE(std::isfinite(v));
}

TEST(MatchHead, FeaturesTrainedForAnotherBuildAreAClearError) {
  TempDir dir;
  const auto shipped = source_dir() / "models/default";
  if (!std::filesystem::exists(shipped / "match_head.json")) GTEST_SKIP() << "no shipped match head";
  std::filesystem::copy(shipped, dir.path(), std::filesystem::copy_options::recursive);
  auto head = nlohmann::json::parse(read_file(dir / "match_head.json"));
  head["features"][0] = "renamed";
  write_file(dir / "match_head.json", head.dump());
  try {
    Matcher::load(dir.path());
    FAIL() << "loaded a head for other features";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trained on other pair features"), std::string::npos) << e.what();
  }
}

// The shipped model on clear-cut pairs, written for this test (not from any data set).
TEST(DefaultModel, DecidesClearCases) {
  const auto dir = source_dir() / "models/default";
  if (!std::filesystem::exists(dir / "model.safetensors")) GTEST_SKIP() << "no shipped default model";
  const Matcher matcher = Matcher::load(dir);
  const std::vector<AddressPair> pairs = {
      {"浙江省杭州市西湖区文三路90号东部软件园8号楼", "杭州西湖区文三路90号东部软件园8号楼"},
      {"浙江省杭州市西湖区文三路90号东部软件园8号楼", "广东省深圳市南山区科技园南区高新南一道"},
  };
  const auto results = matcher.score(pairs);
  EXPECT_NE(results[0].label, "not_match");
  EXPECT_EQ(results[1].label, "not_match");
  EXPECT_GT(results[0].score, results[1].score);
}

}  // namespace
}  // namespace geoalign::match
