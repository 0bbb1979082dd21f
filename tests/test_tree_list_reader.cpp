// The head files' trees read straight from the text must be exactly what the general
// JSON route builds, and anything outside the trainer's layout must be left to that route.
#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "match/gbdt.h"
#include "match/tree_list_reader.h"
#include "model/json_file.h"
#include "geoalign/error.h"
#include "support/temp_dir.h"

namespace geoalign::match {
namespace {

using testing::source_dir;
using testing::TempDir;
using FileTree = GradientBoostedTrees::FileTree;

// Bit for bit, so that a -0 or a float rounded another way shows.
void expect_same_trees(const std::vector<FileTree>& got, const std::vector<FileTree>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t t = 0; t < want.size(); ++t) {
    ASSERT_EQ(got[t].output_class, want[t].output_class) << "tree " << t;
    ASSERT_EQ(got[t].nodes.size(), want[t].nodes.size()) << "tree " << t;
    for (std::size_t n = 0; n < want[t].nodes.size(); ++n) {
      const auto& a = got[t].nodes[n];
      const auto& b = want[t].nodes[n];
      ASSERT_TRUE(a.feature == b.feature && a.left == b.left && a.right == b.right &&
                  std::bit_cast<std::uint32_t>(a.threshold) == std::bit_cast<std::uint32_t>(b.threshold) &&
                  std::bit_cast<std::uint32_t>(a.value) == std::bit_cast<std::uint32_t>(b.value))
          << "tree " << t << " node " << n;
    }
  }
}

std::vector<FileTree> general_route(const std::string& text) {
  return GradientBoostedTrees::trees_of(nlohmann::json::parse(text), "test");
}

TEST(TreeListReader, ShippedHeadsReadAsTheGeneralRouteReadsThem) {
  for (const char* name : {"match_head.json", "rerank_head.json"}) {
    const auto file = source_dir() / "models/default" / name;
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "no shipped " << name;
    const std::string text = model::read_whole_file(file);
    std::vector<FileTree> trees;
    const auto span = read_tree_list(text, trees);
    ASSERT_TRUE(span.has_value()) << name;
    EXPECT_EQ(text.substr(span->begin, 2), "[{") << name;
    EXPECT_EQ(text[span->end - 1], ']') << name;
    expect_same_trees(trees, general_route(text));
  }
}

TEST(TreeListReader, ReadsTheNumbersJsonAllows) {
  // Blanks anywhere, members in either order, integers where floats go and floats in
  // exponent form, -0, integers past 2^53 and past 64 bits, and values float rounds.
  const std::string text =
      " {\"bias\": [0, 0],\n \"trees\" :\r\n[ {\"nodes\":[[0, -0, 1, 2, 1e-3],[-1,0,0,0,-0.0],[-1, 0, 0, 0, 16777217]],"
      " \"class\" : 1 },\t{\"class\":0,\"nodes\":[[1, 9007199254740993, 1, 2, 0.1],"
      " [-1, 1.5E+2, 0, 0, 18446744073709551617], [-1, -9223372036854775808, 0, 0, 3.4028236e38]]},"
      " {\"class\": 0, \"nodes\": []}], \"z\": {\"trees\": 1}} ";
  std::vector<FileTree> trees;
  ASSERT_TRUE(read_tree_list(text, trees).has_value());
  expect_same_trees(trees, general_route(text));
  EXPECT_EQ(trees[0].output_class, 1u);
  EXPECT_TRUE(trees[2].nodes.empty());
}

TEST(TreeListReader, LeavesEverythingElseToTheGeneralRoute) {
  const std::string good = R"({"trees": [{"class": 0, "nodes": [[-1, 0, 0, 0, 1]]}]})";
  std::vector<FileTree> trees;
  ASSERT_TRUE(read_tree_list(good, trees).has_value());
  for (const std::string& bad : std::vector<std::string>{
           R"({"trees": [{"class": 0, "nodes": [[-1, 0, 0, 0, 1]], "x": 1}]})",   // another member
           R"({"trees": [{"class": 0.0, "nodes": [[-1, 0, 0, 0, 1]]}]})",         // a float class
           R"({"trees": [{"class": -1, "nodes": [[-1, 0, 0, 0, 1]]}]})",          // out of range
           R"({"trees": [{"class": 0, "nodes": [[-1, 0, 4294967296, 0, 1]]}]})",  // left past 32 bits
           R"({"trees": [{"class": 0, "nodes": [[2147483648, 0, 0, 0, 1]]}]})",   // feature past int32
           R"({"trees": [{"class": 0, "nodes": [[-1, 0, 0, 0]]}]})",              // a short node
           R"({"trees": [{"class": 0, "nodes": [[-1, 01, 0, 0, 1]]}]})",          // not JSON's number
           R"({"trees": [{"class": 0, "nodes": [[-1, 1e999, 0, 0, 1]]}]})",       // out of double's range
           R"({"trees": [{"class": 0, "nodes": [[-1, .5, 0, 0, 1]]}]})",
           R"({"trees": [{"class": 0, "class": 0, "nodes": []}]})",               // a repeated member
           R"({"trees": [], "trees": []})",                                       // two arrays
           R"({"tr\u0065es": [{"class": 0, "nodes": []}]})",                      // an escaped key
           R"({"bias": [0]})",                                                    // none
           R"({"trees": [{"class": 0, "nodes": []}]} x)",                         // trailing text
           R"({"trees": [{"class": 0, "nodes": []}])",                            // unterminated
           R"([{"trees": []}])",
           "\xEF\xBB\xBF" + good,  // a byte-order mark, which nlohmann skips
       }) {
    trees.assign(3, FileTree{});
    EXPECT_FALSE(read_tree_list(bad, trees).has_value()) << bad;
    EXPECT_TRUE(trees.empty()) << bad;
  }
}

// Files outside the layout still load, through the general route, and name their faults.
TEST(TreeListReader, ReadFileFallsBackAndKeepsItsErrors) {
  TempDir dir;
  const auto write = [&](const std::string& text) {
    const auto file = dir / "head.json";
    std::ofstream(file) << text;
    return file;
  };
  std::vector<FileTree> trees;
  const auto rest = GradientBoostedTrees::read_file(
      write(R"({"bias": [1], "trees": [{"class": 0, "nodes": [[-1, 0, 0, 0, 2]], "note": "kept"}]})"), trees);
  ASSERT_EQ(trees.size(), 1u);
  EXPECT_EQ(trees[0].nodes[0].value, 2.0f);
  EXPECT_EQ(rest.at("bias"), nlohmann::json::array({1}));
  const std::string broken = R"({"trees": [{"class": 0, "nodes": [[-1, 0, 0, 0, 2]]}], "bias": [1,]})";
  std::size_t byte = 0;
  try {
    const auto ignored = nlohmann::json::parse(broken);
  } catch (const nlohmann::json::parse_error& e) {
    byte = e.byte;
  }
  ASSERT_GT(byte, 50u);
  try {
    GradientBoostedTrees::read_file(write(broken), trees);
    FAIL() << "a comma before ] is not JSON";
  } catch (const Error& e) {
    // The byte of the file itself, not of a text with its trees cut out.
    EXPECT_NE(std::string(e.what()).find("invalid JSON at byte " + std::to_string(byte)), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace geoalign::match
