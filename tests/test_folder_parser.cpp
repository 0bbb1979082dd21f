// The parser belongs to the model folder, not to its match head: a folder without a head
// (MGeo's layout, tests/fixtures/tiny_mgeo) reads addresses with its own parser/ or the
// bundled one, so it can parse, search and deduplicate.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "geo/parse_json.h"
#include "geoalign/error.h"
#include "model/folder_parser.h"
#include "model/model_folder.h"
#include "support/cli_run.h"
#include "support/raw_client.h"
#include "support/serve_process.h"
#include "support/temp_dir.h"

namespace geoalign::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const std::filesystem::path kBundled = source_dir() / "models/default/parser";

bool same_folder(const std::filesystem::path& a, const std::filesystem::path& b) {
  return std::filesystem::equivalent(a, b);
}

// What a person reads in 北京市朝阳区建国路88号: the city, the district, the road and its number.
void expect_beijing_chaoyang_jianguo_road(const json& parsed) {
  const std::string text = parsed.dump();
  for (const char* part : {"北京市", "朝阳区", "建国路", "88号"}) EXPECT_NE(text.find(part), std::string::npos) << part << " in " << text;
}

TEST(FolderParser, AFolderWithoutAHeadReadsAddressesWithTheBundledParser) {
  const auto folder = model::ModelFolder::load(mgeo_fixture_model());
  ASSERT_EQ(folder.head, nullptr);
  ASSERT_TRUE(folder.parser->available());
  EXPECT_TRUE(same_folder(folder.parser->folder(), kBundled));
  expect_beijing_chaoyang_jianguo_road(geo::parse_json(folder.parser->get().parse("北京市朝阳区建国路88号")));
}

TEST(FolderParser, AHeadsParserIsTheFoldersAndAnotherIsRefusedBesideIt) {
  const auto with_head = model::ModelFolder::load(source_dir() / "models/default");
  ASSERT_NE(with_head.head, nullptr);
  EXPECT_EQ(&with_head.parser->get(), &with_head.head->comparer().parser());  // one parser, not two
  EXPECT_NO_THROW(model::ModelFolder::load(source_dir() / "models/default", ops::MatmulPrecision::FP32, Device::CPU, kBundled));
  const TempDir dir;
  std::filesystem::create_directories(dir.path() / "other");
  try {
    model::ModelFolder::load(source_dir() / "models/default", ops::MatmulPrecision::FP32, Device::CPU, dir.path() / "other");
    FAIL() << "a second parser beside the head's was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("match head"), std::string::npos) << e.what();
  }
}

TEST(FolderParser, AFoldersOwnParserComesBeforeTheBundledOneAndAChosenOneBeforeBoth) {
  const TempDir dir;
  const auto folder = copy_fixture_model(dir, mgeo_fixture_model());
  std::filesystem::copy(kBundled, folder / "parser", std::filesystem::copy_options::recursive);
  EXPECT_TRUE(same_folder(model::ModelFolder::load(folder).parser->folder(), folder / "parser"));
  const auto chosen = model::ModelFolder::load(folder, ops::MatmulPrecision::FP32, Device::CPU, kBundled);
  EXPECT_TRUE(same_folder(chosen.parser->folder(), kBundled));
  EXPECT_THROW(model::ModelFolder::load(folder, ops::MatmulPrecision::FP32, Device::CPU, dir.path() / "nope"), Error);
}

TEST(FolderParser, WithNoParserAnywhereParsingSaysHowToGiveOne) {
  const auto bundled = model::bundled_parser_dir();
  model::set_bundled_parser_dir("/nonexistent/parser");
  const auto folder = model::ModelFolder::load(mgeo_fixture_model());
  model::set_bundled_parser_dir(bundled);
  EXPECT_FALSE(folder.parser->available());
  try {
    folder.parser->get();
    FAIL() << "parsed without a parser";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--parser"), std::string::npos) << e.what();
  }
}

// The CLI over an MGeo-layout folder: an index is built and searched (the query's own
// text comes back among its results), and dedup writes every row with a cluster.
TEST(FolderParser, AnMgeoFolderBuildsAnIndexSearchesAndDeduplicates) {
  const TempDir dir;
  const auto input = dir.path() / "addresses.txt";
  std::ofstream(input) << "北京市朝阳区建国路88号\n上海市浦东新区世纪大道100号\n杭州市西湖区文三路478号\n北京朝阳建国路88号\n";
  const std::string model = mgeo_fixture_model().string();
  const auto built = run_cli("index build --model " + model + " --input " + input.string() + " --out " + (dir.path() / "ix").string());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const auto found = run_cli("search --index " + (dir.path() / "ix").string() + " --k 4", "杭州市西湖区文三路478号\n");
  ASSERT_EQ(found.exit_code, 0) << found.err;
  const json answer = json::parse(found.out);
  bool found_itself = false;
  for (const auto& r : answer.at("results")) found_itself |= r.at("text") == "杭州市西湖区文三路478号";
  EXPECT_TRUE(found_itself) << found.out;

  const auto clusters = dir.path() / "clusters.tsv";
  const auto deduped = run_cli("dedup --model " + model + " --input " + input.string() + " --out " + clusters.string());
  ASSERT_EQ(deduped.exit_code, 0) << deduped.err;
  std::istringstream rows(read_file(clusters));
  std::string line;
  int n = 0;
  while (std::getline(rows, line)) ++n;
  EXPECT_EQ(n, 5);  // header and four rows
}

// /v1/parse answers for a folder without a head.
TEST(FolderParser, AServerOverAnMgeoFolderParses) {
  ServeProcess server({"--model", mgeo_fixture_model().string()});
  ASSERT_TRUE(server.wait_ready()) << server.log();
  RawClient client(server.port());
  client.send(post_request("/v1/parse", R"({"addresses": ["北京市朝阳区建国路88号"]})"));
  RawClient::Response r;
  ASSERT_FALSE(client.read(r)) << server.log();
  ASSERT_EQ(r.result_int(), 200) << r.body();
  const json answer = json::parse(r.body());
  ASSERT_EQ(answer.at("results").size(), 1u) << r.body();
  expect_beijing_chaoyang_jianguo_road(answer.at("results")[0]);
}

}  // namespace
}  // namespace geoalign::testing
