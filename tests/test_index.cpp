// The address index's parts: binary files that refuse truncated or foreign bytes, the
// lexical and vector searches, and the index folder built with the shipped model,
// reopened, and damaged.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "backend/cpu/isa.h"
#include "geoalign/index.h"
#include "index/address_index.h"
#include "index/inner_product_distance.h"
#include "index/searcher.h"
#include "support/error_of.h"
#include "support/load_error.h"
#include "support/temp_dir.h"
#include "support/unit_vectors.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;

index::StringColumn column(const std::vector<std::string>& texts) {
  index::StringColumn c;
  for (const auto& t : texts) c.push_back(t);
  return c;
}

TEST(BinaryFile, RoundTripsAndRefusesForeignTruncatedOrLongerFiles) {
  TempDir dir;
  const auto file = dir / "x.bin";
  const std::vector<std::uint32_t> values = {1, 2, 3};
  {
    index::BinaryWriter out(file, "TESTMAG", 2);
    out.array<std::uint32_t>(values);
    out.close();
  }
  {
    index::BinaryReader in(file, "TESTMAG", 2);
    EXPECT_EQ(in.array<std::uint32_t>("values"), values);
    in.expect_end();
  }
  EXPECT_NE(error_of([&] { index::BinaryReader(file, "OTHER", 2); }).find("not a OTHER file"), std::string::npos);
  EXPECT_NE(error_of([&] { index::BinaryReader(file, "TESTMAG", 3); }).find("version 2"), std::string::npos);
  std::string bytes = read_file(file);
  write_file(file, bytes.substr(0, bytes.size() - 2));
  const std::string truncated = error_of([&] {
    index::BinaryReader in(file, "TESTMAG", 2);
    in.array<std::uint32_t>("values");
  });
  EXPECT_NE(truncated.find("truncated while reading values"), std::string::npos) << truncated;
  EXPECT_NE(truncated.find(file.string()), std::string::npos) << truncated;
  // A length prefix claiming more than the file holds is refused before allocating.
  write_file(file, bytes.substr(0, 12) + std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8));
  EXPECT_NE(error_of([&] {
              index::BinaryReader in(file, "TESTMAG", 2);
              in.array<std::uint32_t>("values");
            }).find("truncated"),
            std::string::npos);
}

TEST(LexicalIndex, RareSharedGramsOutrankCommonOnes) {
  const auto texts = column({"深圳市南山区科技园路1号", "深圳市南山区碧涛苑3栋", "深圳市福田区碧涛苑3栋", "广州市天河区体育西路"});
  const auto ix = index::LexicalIndex::build(texts);
  const auto hits = ix.search("碧涛苑3栋", 4);
  ASSERT_GE(hits.size(), 2u);
  EXPECT_TRUE(hits[0].record == 1 || hits[0].record == 2);
  EXPECT_TRUE(hits[1].record == 1 || hits[1].record == 2);
  EXPECT_GT(hits[0].score, 0.3f);
  // Filtered: only what the filter admits comes back.
  const auto filtered = ix.search("碧涛苑3栋", 4, [](std::uint32_t r) { return r == 2; });
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0].record, 2u);
  EXPECT_TRUE(ix.search("", 4).empty());
  EXPECT_TRUE(ix.search("完全无关", 4).empty());
}

TEST(LexicalIndex, WritesAndReadsBackAndRefusesAnotherRecordCount) {
  TempDir dir;
  const auto texts = column({"文三路478号", "文三路90号", "天目山路"});
  const auto ix = index::LexicalIndex::build(texts);
  ix.write(dir / "lexical.bin");
  const auto back = index::LexicalIndex::read(dir / "lexical.bin", 3);
  const auto a = ix.search("文三路478号", 3), b = back.search("文三路478号", 3);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].record, b[k].record);
  EXPECT_NE(error_of([&] { index::LexicalIndex::read(dir / "lexical.bin", 4); }).find("indexes 3 records"), std::string::npos);
}

// Synthetic addresses, numbered so that each is told apart by a rare gram of its own.
index::StringColumn synthetic_texts(std::size_t n) {
  const std::vector<std::string> roads = {"文三路", "天目山路", "建国路", "中关村大街", "科苑路", "体育西路"};
  index::StringColumn texts;
  for (std::size_t i = 0; i < n; ++i) {
    texts.push_back(roads[i % roads.size()] + std::to_string(i) + "号" + std::to_string(i * 7 % 1000) + "室");
  }
  return texts;
}

// Adding to a built index costs what it adds: small adds go to a tail beside the built
// postings (appending one at a time rebuilt the whole index each time, O(n^2)); the tail
// finds what a build finds, survives a write, and a large add rebuilds exactly as a build.
TEST(LexicalIndex, AddsGoToATailThatSearchesAsABuildDoes) {
  const auto all = synthetic_texts(2000);
  index::StringColumn growing;
  for (std::size_t i = 0; i < 1600; ++i) growing.push_back(all[i]);
  auto ix = index::LexicalIndex::build(growing);
  for (std::size_t i = 1600; i < 2000; ++i) {  // one at a time, up to a quarter of 1,600
    growing.push_back(all[i]);
    ix.add(growing);
  }
  EXPECT_EQ(ix.records(), 2000u);
  EXPECT_EQ(ix.tail_records(), 400u);  // no rebuild
  const auto fresh = index::LexicalIndex::build(growing);
  for (std::size_t i = 0; i < 2000; i += 37) {
    const auto mine = ix.search(growing[i], 3), theirs = fresh.search(growing[i], 3);
    ASSERT_FALSE(mine.empty());
    EXPECT_EQ(mine[0].record, i) << growing[i];
    EXPECT_EQ(mine[0].record, theirs[0].record);
    EXPECT_NEAR(mine[0].score, theirs[0].score, 0.02f);
  }
  TempDir dir;
  ix.write(dir / "lexical.bin");
  const auto back = index::LexicalIndex::read(dir / "lexical.bin", 2000);
  for (std::size_t i = 0; i < 2000; i += 53) {
    const auto a = ix.search(growing[i], 5), b = back.search(growing[i], 5);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].record, b[k].record);
      EXPECT_EQ(a[k].score, b[k].score);  // the same weights, summed in the same order
    }
  }
  growing.push_back("文三路478号华星科技大厦");  // past a quarter: all built again, as a build would
  ix.add(growing);
  EXPECT_EQ(ix.tail_records(), 0u);
  const auto rebuilt = index::LexicalIndex::build(growing);
  const auto a = ix.search(all[5], 5), b = rebuilt.search(all[5], 5);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].score, b[k].score);
  EXPECT_THROW(ix.add(column({"文三路"})), Error);  // fewer texts than records
}

TEST(AddressIndex, RecordNumbersPast32BitsAreAnError) {
  constexpr std::size_t most = index::AddressIndex::kMaxRecords;
  EXPECT_NO_THROW(index::AddressIndex::check_room(most - 1, 1));
  EXPECT_NE(error_of([] { index::AddressIndex::check_room(most - 1, 2); }).find("holds at most 4294967294"),
            std::string::npos);
  EXPECT_THROW(index::AddressIndex::check_room(0, most + 1), Error);
  EXPECT_THROW(index::AddressIndex::check_room(most + 5, 0), Error);
}

// The records of a region, from per-code lists, against a scan with the definition.
TEST(RegionRecords, ListTheRecordsARegionFilterAdmits) {
  const std::vector<std::pair<std::string, bool>> codes = {
      {"3301", false}, {"330106", false}, {"330106001", false}, {"33", false},   {"", false},
      {"330106", true}, {"1101", true},   {"110105", false},    {"330108", false}, {"3301", true}};
  index::RegionRecords regions;
  for (std::uint32_t r = 0; r < 400; ++r) regions.add(r, codes[r % codes.size()].first, codes[r % codes.size()].second);
  for (const std::string region : {"33", "3301", "330106", "11", "44", "330106001"}) {
    for (const bool or_unknown : {false, true}) {
      std::multiset<std::uint32_t> listed;
      for (const auto& list : regions.lists_in(region, or_unknown)) listed.insert(list.begin(), list.end());
      std::multiset<std::uint32_t> expected;
      for (std::uint32_t r = 0; r < 400; ++r) {
        const auto& [code, guess] = codes[r % codes.size()];
        const bool unknown = region.starts_with(code) || guess;
        if (code.starts_with(region) || (or_unknown && unknown)) expected.insert(r);
      }
      EXPECT_EQ(listed, expected) << region << (or_unknown ? " or unknown" : "");
    }
  }
}

// A search limited to `records` (sorted), as a region filter gives one.
index::RecordSet set_of(const std::vector<std::uint32_t>& records) {
  index::RecordSet set;
  if (!records.empty()) set.lists.emplace_back(records);
  set.size = records.size();
  set.contains = [&records](std::uint32_t r) { return std::binary_search(records.begin(), records.end(), r); };
  return set;
}

TEST(VectorIndex, FindsEachVectorFirstAndSurvivesAWriteAndRead) {
  constexpr std::size_t dim = 16, n = 300;
  const std::vector<float> rows = random_unit_vectors(n, dim, 7);
  index::VectorIndex ix(dim, {});
  ix.add({rows.data(), 100 * dim});
  ix.add({rows.data() + 100 * dim, 200 * dim});  // appending grows the graph
  ASSERT_EQ(ix.size(), n);
  TempDir dir;
  ix.write(dir / "v.hnsw");
  const auto back = index::VectorIndex::read(dir / "v.hnsw", dim, n);
  for (std::size_t i = 0; i < n; i += 37) {
    const auto hits = back.search({rows.data() + i * dim, dim}, 3, 50);
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].record, i);
    EXPECT_NEAR(hits[0].score, 1.0f, 1e-4f);
  }
  // Limited to some records: a few are compared exactly (the true nearest, whatever the
  // graph would have found); for many, the graph finds k of them.
  std::vector<std::uint32_t> odd_records, three_records = {5, 150, 299};
  for (std::uint32_t r = 1; r < n; r += 2) odd_records.push_back(r);
  const auto odd_set = set_of(odd_records), three_set = set_of(three_records);
  const auto odd = back.search({rows.data(), dim}, 5, 50, &odd_set);
  ASSERT_EQ(odd.size(), 5u);
  for (const auto& h : odd) EXPECT_EQ(h.record % 2, 1u);
  const auto three = back.search({rows.data() + 150 * dim, dim}, 5, 50, &three_set);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].record, 150u);
  for (std::size_t i = 1; i < three.size(); ++i) EXPECT_GE(three[i - 1].score, three[i].score);
  const std::vector<std::uint32_t> no_records;
  const auto none = set_of(no_records);
  EXPECT_TRUE(back.search({rows.data(), dim}, 5, 50, &none).empty());
  index::VectorIndex::Options graph_walk;
  graph_walk.exact_limit = 10;
  index::VectorIndex walked(dim, graph_walk);
  walked.add(rows);
  for (std::size_t i = 1; i < n; i += 38) {  // k = 1: the graph is asked for 10, far fewer than 150
    const auto hits = walked.search({rows.data() + i * dim, dim}, 1, 1, &odd_set);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].record, i);
  }
  EXPECT_NE(error_of([&] { index::VectorIndex::read(dir / "v.hnsw", dim, n + 1); }).find("holds 300 vectors"), std::string::npos);
  EXPECT_NE(error_of([&] { index::VectorIndex::read(dir / "v.hnsw", dim + 1, n); }).find("vectors of 16 dimensions"),
            std::string::npos);
}

// Every instruction set's distance against the baseline's, on lengths with and without a tail.
TEST(InnerProductDistance, EveryIsaComputesTheBaselineDistance) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (std::size_t dim : {1u, 7u, 16u, 33u, 256u}) {
    std::vector<float> a(dim), b(dim);
    for (auto& v : a) v = uniform(rng);
    for (auto& v : b) v = uniform(rng);
    float expected = 1;
    for (std::size_t i = 0; i < dim; ++i) expected -= a[i] * b[i];
    for (auto isa : {cpu::Isa::Baseline, cpu::Isa::Avx2, cpu::Isa::Avx512Bf16}) {
      cpu::limit_isa(isa);
      EXPECT_NEAR(index::inner_product_distance()(a.data(), b.data(), &dim), expected, 1e-5f)
          << "dim " << dim << ", " << cpu::isa_name(cpu::active_isa());
    }
    cpu::limit_isa(cpu::Isa::Avx512Bf16);  // back to what the CPU supports
  }
}

class AddressIndexTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = engine::Engine::load(source_dir() / "models/default", {.precision = Precision::FP32, .head = engine::Head::Rerank})
                 .release();
  }
  static void TearDownTestSuite() { delete model_; }
  static engine::Engine* model_;

  index::AddressIndex build(const std::vector<index::NewRecord>& records) {
    index::AddressIndex ix(source_dir() / "models/default", *model_);
    ix.add(*model_, records);
    return ix;
  }
};
engine::Engine* AddressIndexTest::model_ = nullptr;

const std::vector<index::NewRecord> kRecords = {
    {"hz1", "杭州市西湖区文三路478号华星科技大厦"}, {"hz2", "杭州市西湖区文三路90号东部软件园"},
    {"bj1", "北京市朝阳区建国路88号SOHO现代城"},   {"bj2", "北京市海淀区中关村大街27号"},
    {"sz1", "深圳市南山区科技园科苑路15号"},       {"", "上海市浦东新区世纪大道100号"}};

TEST_F(AddressIndexTest, SearchFindsTheSamePlaceWrittenDifferently) {
  const auto ix = build(kRecords);
  EXPECT_EQ(ix.id(5), "5");  // a record without an id is named by its number
  EXPECT_EQ(ix.adcode(0).substr(0, 4), "3301");
  const index::Searcher searcher(ix, *model_);
  const std::vector<std::string> queries = {"文三路478号华星大厦", "北京朝阳建国路88号", "\u200B深圳 南山科苑路15号"};
  const auto results = searcher.search(queries, {});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(ix.id(results[0].at(0).record), "hz1");
  EXPECT_EQ(ix.id(results[1].at(0).record), "bj1");
  EXPECT_EQ(ix.id(results[2].at(0).record), "sz1");
  ASSERT_TRUE(results[0][0].match.has_value());
  EXPECT_FLOAT_EQ(results[0][0].score, results[0][0].match->p_exact_match);
  // Without rerank the order is the fused one and no label is given.
  index::SearchOptions plain;
  plain.rerank = 0;
  plain.k = 2;
  const auto fused = searcher.search(queries, plain);
  ASSERT_EQ(fused[0].size(), 2u);
  EXPECT_FALSE(fused[0][0].match.has_value());
  // A region keeps results inside it.
  index::SearchOptions beijing;
  beijing.region = searcher.region_code("北京市");
  EXPECT_EQ(beijing.region, "11");
  const auto in_beijing = searcher.search(queries, beijing);
  EXPECT_FALSE(in_beijing[0].empty());
  for (const auto& hit : in_beijing[0]) EXPECT_EQ(ix.adcode(hit.record).substr(0, 2), "11");
  EXPECT_THROW(searcher.region_code("不存在的地方"), Error);
}

TEST_F(AddressIndexTest, ARegionNameIsReadAsADivisionBeforeATown) {
  const auto ix = build(kRecords);
  const index::Searcher searcher(ix, *model_);
  EXPECT_EQ(searcher.region_code("北京"), "11");
  EXPECT_EQ(searcher.region_code("深圳市南山区"), "440305");
  // 通州 alone parses as 通州镇 in Guizhou; as a region it is one of two districts.
  try {
    searcher.region_code("通州");
    ADD_FAILURE() << "通州 should be ambiguous";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("110112"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("320612"), std::string::npos) << e.what();
  }
  EXPECT_EQ(searcher.region_code("北京市通州"), "110112");
  EXPECT_EQ(searcher.region_code("海淀"), "110108");  // not 海淀街道, the street inside it
  EXPECT_THROW(searcher.region_code("西湖"), Error);  // 杭州's or 南昌's
  EXPECT_THROW(searcher.region_code("南山区"), Error);
  // A former district split in two is either of them, not the city above both.
  EXPECT_THROW(searcher.region_code("江干区"), Error);
  EXPECT_EQ(searcher.region_code("杭州市下城区"), "330105");  // merged into 拱墅区
}

TEST_F(AddressIndexTest, SavesReopensAndAppends) {
  TempDir dir;
  auto ix = build(kRecords);
  ix.save(dir / "ix");
  auto back = index::AddressIndex::open(dir / "ix");
  ASSERT_EQ(back.size(), kRecords.size());
  EXPECT_EQ(back.text(1), kRecords[1].text);
  back.check_model(source_dir() / "models/default");
  // Another normalization would store other texts than the index holds: refused, as other
  // weights are.
  std::filesystem::copy(source_dir() / "models/default", dir / "other", std::filesystem::copy_options::recursive);
  {
    std::ifstream in(dir / "other/config.json");
    std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string on = "\"fold_variants\": true";
    const auto at = config.find(on);
    ASSERT_NE(at, std::string::npos);
    config.replace(at, on.size(), "\"fold_variants\": false");
    std::ofstream(dir / "other/config.json") << config;
  }
  EXPECT_NE(error_of([&] { back.check_model(dir / "other"); }).find("weights or settings"), std::string::npos);
  back.add(*model_, {{"gz1", "广州市天河区体育西路103号"}});
  EXPECT_EQ(back.size(), kRecords.size() + 1);
  EXPECT_NE(error_of([&] { back.add(*model_, {{"hz1", "杭州"}}); }).find("\"hz1\" is already in the index"), std::string::npos);
  EXPECT_NE(error_of([&] { back.add(*model_, {{"n1", "杭州"}, {"n1", "北京"}}); }).find("repeats record 1"), std::string::npos);
  EXPECT_NE(error_of([&] { back.add(*model_, {{"blank", "\u200B \u3000"}}); }).find("blank after normalization"),
            std::string::npos);
  EXPECT_EQ(back.size(), kRecords.size() + 1);  // nothing of a refused batch was added
  back.save(dir / "ix");
  const auto again = index::AddressIndex::open(dir / "ix");
  EXPECT_EQ(again.size(), kRecords.size() + 1);
  const index::Searcher searcher(again, *model_);
  const auto hits = searcher.search(std::vector<std::string>{"广州天河体育西路103号"}, {})[0];
  EXPECT_EQ(again.id(hits.at(0).record), "gz1");
}

// A query's own city leaves out records known to lie in other cities, not those whose
// city is unknown; a query whose city is only guessed from a town's name is not limited.
TEST_F(AddressIndexTest, RegionFromQueryKeepsRecordsOfUnknownCity) {
  auto records = kRecords;
  records.push_back({"nocity", "科苑路15号科技园"});
  records.push_back({"gz", "广州市越秀区北京路15号"});
  const auto ix = build(records);
  const index::Searcher searcher(ix, *model_);
  index::SearchOptions own;
  own.region_from_query = true;
  own.k = 10;
  const std::vector<std::string> queries = {"深圳市南山区科苑路15号", "北京建国路88号"};
  const auto limited = searcher.search(queries, own);
  std::vector<std::string> ids;
  for (const auto& hit : limited[0]) ids.emplace_back(ix.id(hit.record));
  EXPECT_NE(std::ranges::find(ids, "sz1"), ids.end());
  EXPECT_NE(std::ranges::find(ids, "nocity"), ids.end());
  for (const auto& id : ids) EXPECT_TRUE(id == "sz1" || id == "nocity") << id;
  // 北京 before a road reads as 广州's 北京街道: a guess, so 北京 records stay in.
  index::SearchOptions all = own;
  all.region_from_query = false;
  const auto everywhere = searcher.search(std::span(queries).subspan(1), all);
  ASSERT_EQ(limited[1].size(), everywhere[0].size());
  for (std::size_t i = 0; i < limited[1].size(); ++i) EXPECT_EQ(limited[1][i].record, everywhere[0][i].record);
}

// A record whose normalized text is the query's comes first, an exact match of score 1, as
// copies are in dedup; the head alone put a terse address below a fuller one.
TEST_F(AddressIndexTest, TheQuerysOwnTextIsTheFirstHit) {
  const auto ix = build({{"full", "泗塘新村泗塘一村45号"}, {"same", "上海市泗塘一村"}, {"other", "上海市泗塘二村"}});
  const index::Searcher searcher(ix, *model_);
  const auto hits = searcher.search(std::vector<std::string>{"上海市 泗塘一村"}, {})[0];
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(ix.id(hits[0].record), "same");
  EXPECT_EQ(hits[0].score, 1.0f);
  ASSERT_TRUE(hits[0].match.has_value());
  EXPECT_EQ(hits[0].match->label, "exact_match");
}

// The rule reads the folder's label roles, not the English names: a folder labelled as
// MGeo's and the CCKS files are (不匹配 / 部分匹配 / 完全匹配) keeps it.
TEST(AddressIndex, TheQuerysOwnTextIsAnExactMatchWhateverTheLabelsAreCalled) {
  TempDir dir;
  const auto folder = dir / "chinese-labels";
  std::filesystem::copy(source_dir() / "models/default", folder, std::filesystem::copy_options::recursive);
  auto config = nlohmann::json::parse(read_file(folder / "config.json"));
  config["id2label"] = {{"0", "不匹配"}, {"1", "部分匹配"}, {"2", "完全匹配"}};
  config["label2id"] = {{"不匹配", 0}, {"部分匹配", 1}, {"完全匹配", 2}};
  write_file(folder / "config.json", config.dump());
  const auto model = engine::Engine::load(folder, {.precision = Precision::FP32, .head = engine::Head::Rerank});
  index::AddressIndex ix(folder, *model);
  ix.add(*model, {{"full", "泗塘新村泗塘一村45号"}, {"same", "上海市泗塘一村"}, {"other", "上海市泗塘二村"}});
  const index::Searcher searcher(ix, *model);
  const auto hits = searcher.search(std::vector<std::string>{"上海市 泗塘一村"}, {})[0];
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(ix.id(hits[0].record), "same");
  EXPECT_EQ(hits[0].score, 1.0f);
  ASSERT_TRUE(hits[0].match.has_value());
  EXPECT_EQ(hits[0].match->label, "完全匹配");
  EXPECT_EQ(hits[0].match->p_exact_match, 1.0f);
}

// The public API (include/geoalign/index.h), as a program linking the installed library
// uses it: build, add, search (with a region), save, open again, search again.
TEST(PublicIndex, BuildsSearchesSavesAndOpensAgain) {
  TempDir dir;
  geoalign::Index ix = geoalign::Index::create(source_dir() / "models/default", {.precision = Precision::FP32});
  const std::vector<geoalign::IndexRecord> records = {{"hz1", "杭州市西湖区文三路478号华星科技大厦"},
                                                      {"bj1", "北京市朝阳区建国路88号SOHO现代城"},
                                                      {"", "深圳市南山区科技园科苑路15号"}};
  ix.add(records);
  EXPECT_EQ(ix.size(), 3u);
  const std::vector<std::string> queries = {"文三路478号华星大厦", "北京朝阳建国路88号", "南山科苑路15号"};
  const auto hits = ix.search(queries);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].at(0).id, "hz1");
  EXPECT_EQ(hits[1].at(0).id, "bj1");
  EXPECT_EQ(hits[2].at(0).id, "2");  // a record without an id is named by its number
  EXPECT_EQ(hits[0][0].text, records[0].address);
  ASSERT_TRUE(hits[0][0].match.has_value());
  EXPECT_FLOAT_EQ(hits[0][0].score, hits[0][0].match->p_exact_match);
  const auto in_beijing = ix.search(std::span(queries).first(1), {.region = "北京市"});
  for (const auto& hit : in_beijing[0]) EXPECT_EQ(hit.id, "bj1");

  ix.save(dir / "ix");
  EXPECT_TRUE(std::filesystem::exists(dir / "ix" / geoalign::Index::kManifestFile));
  const geoalign::Index again = geoalign::Index::open(dir / "ix", {}, {.precision = Precision::FP32});
  const auto reopened = again.search(queries);
  ASSERT_EQ(reopened.size(), hits.size());
  for (std::size_t q = 0; q < hits.size(); ++q) {
    ASSERT_EQ(reopened[q].size(), hits[q].size()) << q;
    for (std::size_t k = 0; k < hits[q].size(); ++k) {
      EXPECT_EQ(reopened[q][k].id, hits[q][k].id) << q << " " << k;
      EXPECT_EQ(reopened[q][k].score, hits[q][k].score) << q << " " << k;
    }
  }
  EXPECT_THROW(geoalign::Index::open(dir / "nothing-here"), Error);

  // link: each query's matches are its reranked hits that are not not_match, best first;
  // a query naming no record has none.
  const std::vector<std::string> left = {"文三路478号华星大厦", "广州市天河区体育西路191号中石化大厦"};
  const auto links = again.link(left, {.k = 2, .search = {.rerank = 10}});
  ASSERT_EQ(links.size(), 2u);
  ASSERT_FALSE(links[0].empty());
  EXPECT_EQ(links[0][0].id, "hz1");
  EXPECT_TRUE(links[1].empty());
  const auto searched = again.search(left, {.k = 10, .rerank = 10});
  std::vector<std::string> matched;
  for (const auto& hit : searched[0]) {
    if (hit.match && hit.match->label != "not_match" && matched.size() < 2) matched.push_back(hit.id);
  }
  ASSERT_EQ(links[0].size(), matched.size());
  for (std::size_t k = 0; k < matched.size(); ++k) EXPECT_EQ(links[0][k].id, matched[k]);
  EXPECT_THROW(again.link(left, {.k = 0}), Error);
  EXPECT_THROW(again.link(left, {.k = 5, .search = {.rerank = 3}}), Error);
}

// A record whose chain is ambiguous lies, for region filters, in its most likely reading.
TEST_F(AddressIndexTest, AnAmbiguousRecordLiesInItsLikeliestRegion) {
  const auto ix = build({{"lg", "龙岗区安良五村张屋61号楼"}});
  ASSERT_TRUE(model_->prepare(std::string(ix.normalized(0))).parsed.admin.ambiguous);
  const index::Searcher searcher(ix, *model_);
  index::SearchOptions longgang;
  longgang.region = searcher.region_code("深圳市龙岗区");
  const auto hits = searcher.search(std::vector<std::string>{"龙岗区安良五村张屋61号楼"}, longgang)[0];
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(ix.id(hits[0].record), "lg");
  EXPECT_TRUE(ix.adcode_is_guess(0));
  EXPECT_EQ(ix.adcode(0), "440307");
}

// A guessed reading is no known city: a query naming another city keeps the record.
TEST_F(AddressIndexTest, AQuerysCityKeepsRecordsWhoseCityIsOnlyGuessed) {
  const auto ix = build({{"r1", "朝阳区人民大街1号"}, {"r2", "北京市朝阳区建国路88号"}, {"r3", "长春市南关区人民大街2号"}});
  ASSERT_TRUE(ix.adcode_is_guess(0));
  const index::Searcher searcher(ix, *model_);
  index::SearchOptions own;
  own.region_from_query = true;
  std::vector<std::string> ids;
  const auto results = searcher.search(std::vector<std::string>{"长春市朝阳区人民大街1号"}, own);
  for (const auto& hit : results[0]) ids.emplace_back(ix.id(hit.record));
  EXPECT_NE(std::ranges::find(ids, "r1"), ids.end());
  EXPECT_EQ(std::ranges::find(ids, "r2"), ids.end());
}

// A save that fails leaves the index as it was; each save replaces the last whole; a save
// over one another process made since this copy was opened is refused.
TEST_F(AddressIndexTest, SavesAreWholeAndKeepAnotherProcesssRecords) {
  namespace fs = std::filesystem;
  TempDir dir;
  auto ix = build(kRecords);
  ix.save(dir / "ix");  // a first save: the plain names
  EXPECT_TRUE(fs::exists(dir / "ix/records.bin"));
  ix.add(*model_, {{"gz1", "广州市天河区体育西路103号"}});
  // A folder where the next save's graph goes makes its write fail, after the others.
  fs::create_directories(dir / "ix/vectors.1.hnsw");
  EXPECT_NE(error_of([&] { ix.save(dir / "ix"); }).find("vectors.1.hnsw"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "ix/records.1.bin"));
  EXPECT_EQ(index::AddressIndex::open(dir / "ix").size(), kRecords.size());
  fs::remove(dir / "ix/vectors.1.hnsw");
  ix.save(dir / "ix");
  EXPECT_FALSE(fs::exists(dir / "ix/records.bin"));  // the replaced save's files go
  EXPECT_EQ(index::AddressIndex::open(dir / "ix").size(), kRecords.size() + 1);
  // Two copies opened at once: the second to save would drop the first's record.
  auto a = index::AddressIndex::open(dir / "ix");
  auto b = index::AddressIndex::open(dir / "ix");
  a.add(*model_, {{"a1", "上海市黄浦区南京东路1号"}});
  b.add(*model_, {{"b1", "南京市鼓楼区中山路100号"}});
  a.save(dir / "ix");
  EXPECT_NE(error_of([&] { b.save(dir / "ix"); }).find("another process saved this index"), std::string::npos);
  const auto after = index::AddressIndex::open(dir / "ix");
  EXPECT_TRUE(after.has_id("a1"));
  EXPECT_FALSE(after.has_id("b1"));
  b.save(dir / "copy");  // elsewhere it may go
  EXPECT_EQ(index::AddressIndex::open(dir / "copy").size(), kRecords.size() + 2);
}

void expect_same_parse(const ParsedAddress& got, const ParsedAddress& want) {
  EXPECT_EQ(got.text, want.text);
  ASSERT_EQ(got.elements.size(), want.elements.size()) << want.text;
  for (std::size_t i = 0; i < want.elements.size(); ++i) {
    EXPECT_EQ(got.elements[i].tag, want.elements[i].tag) << want.text;
    EXPECT_EQ(got.elements[i].text, want.elements[i].text) << want.text;
    EXPECT_EQ(got.elements[i].start, want.elements[i].start) << want.text;
    EXPECT_EQ(got.elements[i].end, want.elements[i].end) << want.text;
  }
  EXPECT_EQ(got.admin.adcode, want.admin.adcode) << want.text;
  EXPECT_EQ(got.admin.ambiguous, want.admin.ambiguous) << want.text;
  EXPECT_EQ(got.admin.candidates, want.admin.candidates) << want.text;
  for (auto level : {&AdminChain::prov, &AdminChain::city, &AdminChain::district, &AdminChain::town}) {
    ASSERT_EQ((got.admin.*level).has_value(), (want.admin.*level).has_value()) << want.text;
    if (!(want.admin.*level)) continue;
    EXPECT_EQ((got.admin.*level)->name, (want.admin.*level)->name) << want.text;
    EXPECT_EQ((got.admin.*level)->code, (want.admin.*level)->code) << want.text;
    EXPECT_EQ((got.admin.*level)->inferred, (want.admin.*level)->inferred) << want.text;
  }
}

// Search reranks stored parses: completing the stored elements must give what parsing
// the record again gives, before and after a save, and a version 1 folder (no parses.bin)
// still opens and parses its records on demand.
TEST_F(AddressIndexTest, StoredParsesEqualParsingAgain) {
  TempDir dir;
  auto ix = build(kRecords);
  ASSERT_TRUE(ix.has_parses());
  for (std::size_t r = 0; r < ix.size(); ++r) {
    expect_same_parse(ix.address(r, *model_).parsed, model_->prepare(ix.normalized(r)).parsed);
  }
  ix.save(dir / "ix");
  const auto back = index::AddressIndex::open(dir / "ix");
  ASSERT_TRUE(back.has_parses());
  for (std::size_t r = 0; r < back.size(); ++r) {
    expect_same_parse(back.address(r, *model_).parsed, model_->prepare(back.normalized(r)).parsed);
  }

  auto manifest = nlohmann::json::parse(read_file(dir / "ix/manifest.json"));
  manifest["version"] = 1;
  manifest["files"].erase("parses.bin");
  manifest.erase("parser_checksum");
  write_file(dir / "ix/manifest.json", manifest.dump());
  std::filesystem::remove(dir / "ix/parses.bin");
  auto v1 = index::AddressIndex::open(dir / "ix");
  EXPECT_FALSE(v1.has_parses());
  expect_same_parse(v1.address(2, *model_).parsed, model_->prepare(v1.normalized(2)).parsed);
  v1.add(*model_, {{"gz1", "广州市天河区体育西路103号"}});
  EXPECT_FALSE(v1.has_parses()) << "elements for some records only would be stored as if for all";
  v1.save(dir / "ix");
  EXPECT_FALSE(std::filesystem::exists(dir / "ix/parses.bin"));
  EXPECT_EQ(index::AddressIndex::open(dir / "ix").size(), kRecords.size() + 1);
}

TEST_F(AddressIndexTest, CompletingElementsChecksTheirTagsAndSpans) {
  const std::string text = "杭州市西湖区文三路478号";
  auto elements = model_->prepare(text).parsed.elements;
  ASSERT_FALSE(elements.empty());
  auto past_end = elements;
  past_end.back().end = 1000;
  EXPECT_NE(error_of([&] { model_->complete(text, past_end); }).find("outside"), std::string::npos);
  auto unknown = elements;
  unknown.front().tag = "planet";
  EXPECT_NE(error_of([&] { model_->complete(text, unknown); }).find("planet"), std::string::npos);
}

// The graph's structure is checked, not only its checksum: a file whose checksum was
// recomputed over a bad entry point or link sent search out of bounds (a segfault).
TEST_F(AddressIndexTest, AGraphIsCheckedWhateverItsChecksumSays) {
  TempDir dir;
  build(kRecords).save(dir / "ix");
  const auto folder = dir / "ix";
  const std::string graph = read_file(folder / "vectors.hnsw");
  const std::string manifest = read_file(folder / "manifest.json");
  const auto damage = [&](std::size_t at, const std::string& bytes) {
    std::string damaged = graph;
    damaged.replace(at, bytes.size(), bytes);
    write_file(folder / "vectors.hnsw", damaged);
    auto m = nlohmann::json::parse(manifest);
    char checksum[17];
    std::snprintf(checksum, sizeof checksum, "%016llx",
                  static_cast<unsigned long long>(index::file_checksum(folder / "vectors.hnsw")));
    m["files"]["vectors.hnsw"]["checksum"] = checksum;
    m["files"]["vectors.hnsw"]["bytes"] = damaged.size();
    write_file(folder / "manifest.json", m.dump());
    return error_of([&] { index::AddressIndex::open(folder); });
  };
  // The header's fields: 6 sizes, the top layer (int), the entry point (uint32) at byte 52, ...
  const std::string entry = damage(52, std::string("\xf0\xff\xff\xff", 4));
  EXPECT_NE(entry.find("vectors.hnsw: not a graph this build can read (entry point 4294967280"), std::string::npos)
      << entry;
  // ... 3 sizes and a double: the bottom layer starts at byte 96 with node 0's link count
  // and links.
  const std::string link = damage(100, std::string("\x00\x00\x00\x70", 4));
  EXPECT_NE(link.find("node 0 links to 1879048192 on layer 0"), std::string::npos) << link;
  const std::string count = damage(96, std::string("\xff\x00", 2));
  EXPECT_NE(count.find("node 0 has 255 links on layer 0"), std::string::npos) << count;
  const std::string nan = damage(96 + 4 + 32 * 4, std::string("\x00\x00\xc0\x7f", 4));  // node 0's first float
  EXPECT_NE(nan.find("vector is not finite"), std::string::npos) << nan;
  const std::string longer = damage(graph.size(), "extra");
  EXPECT_NE(longer.find("5 bytes after the last node"), std::string::npos) << longer;
  write_file(folder / "vectors.hnsw", graph);
  write_file(folder / "manifest.json", manifest);
  EXPECT_NO_THROW(index::AddressIndex::open(folder));
}

TEST_F(AddressIndexTest, RefusesDamagedIndexesNamingTheFile) {
  TempDir dir;
  build(kRecords).save(dir / "ix");
  const auto folder = dir / "ix";
  for (const char* name : {"records.bin", "parses.bin", "lexical.bin", "vectors.hnsw"}) {
    const std::string saved = read_file(folder / name);
    write_file(folder / name, saved.substr(0, saved.size() / 2));
    const std::string truncated = error_of([&] { index::AddressIndex::open(folder); });
    EXPECT_NE(truncated.find((folder / name).string()), std::string::npos) << truncated;
    EXPECT_NE(truncated.find("truncated or replaced"), std::string::npos) << truncated;
    std::string flipped = saved;
    flipped[flipped.size() / 2] ^= 0x5a;
    write_file(folder / name, flipped);
    EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("checksum mismatch"), std::string::npos);
    write_file(folder / name, saved);
  }
  EXPECT_NO_THROW(index::AddressIndex::open(folder));
  // Built before the normalizer last changed what it writes: its stored texts are stale.
  const std::string manifest = read_file(folder / "manifest.json");
  auto older = nlohmann::json::parse(manifest);
  older.erase("normalization");
  write_file(folder / "manifest.json", older.dump());
  const std::string stale = error_of([&] { index::AddressIndex::open(folder); });
  EXPECT_NE(stale.find("normalized as in revision 0"), std::string::npos) << stale;
  EXPECT_NE(stale.find("rebuild the index"), std::string::npos) << stale;
  auto damaged = nlohmann::json::parse(manifest);
  damaged["model_checksum"] = "not hex";
  write_file(folder / "manifest.json", damaged.dump());
  EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("\"model_checksum\" is not a hex checksum"),
            std::string::npos);
  auto too_many = nlohmann::json::parse(manifest);
  too_many["records"] = std::uint64_t{1} << 33;  // more than 32-bit record numbers reach
  write_file(folder / "manifest.json", too_many.dump());
  EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("\"records\" is not a record count"),
            std::string::npos);
  // Not a manifest's size: refused before it is read whole (a link to /dev/zero was read
  // until memory ran out).
  write_file(folder / "manifest.json", manifest + std::string(2 << 20, ' '));
  EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("at most 1048576 are expected"), std::string::npos);
  std::filesystem::remove(folder / "manifest.json");
  std::filesystem::create_symlink("/dev/zero", folder / "manifest.json");
  EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("is not a regular file"), std::string::npos);
  std::filesystem::remove(folder / "manifest.json");
  write_file(folder / "manifest.json", manifest);
  EXPECT_NO_THROW(index::AddressIndex::open(folder));
  write_file(folder / "manifest.json", "{\"format\": \"geoalign-index\", \"version\": 1");
  EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("manifest.json"), std::string::npos);
  std::filesystem::remove(folder / "manifest.json");
  EXPECT_NE(error_of([&] { index::AddressIndex::open(folder); }).find("not an index"), std::string::npos);
  EXPECT_NE(error_of([&] { index::AddressIndex::open(dir / "nothing"); }).find("no such index folder"), std::string::npos);
}

}  // namespace
}  // namespace geoalign
