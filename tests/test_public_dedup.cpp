// The public dedup API (geoalign/dedup.h): the whole job in one call, and the same job
// stage by stage in small pieces, as geoalign.dask runs it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "geoalign/dedup.h"
#include "support/error_of.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using testing::error_of;
using testing::source_dir;

// Four places, each written two ways, one row repeated: which rows are one place is known
// without the model.
const std::vector<std::string> kRows = {
    "杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦", "北京市海淀区中关村大街27号", "海淀中关村大街27号",
    "杭州市西湖区天目山路100号", "上海市浦东新区世纪大道100号环球金融中心", "世纪大道100号上海环球金融中心",
    "杭州市西湖区文三路478号华星科技大厦"};

const Deduplicator& deduplicator() {
  static const Deduplicator d = Deduplicator::load(source_dir() / "models/default");
  return d;
}

TEST(PublicDedup, RunGroupsEachPlacesRowsAndKeepsPlacesApart) {
  const DedupTable t = deduplicator().run(kRows);
  ASSERT_EQ(t.cluster_row.size(), kRows.size());
  EXPECT_EQ(t.cluster_row[1], t.cluster_row[0]);
  EXPECT_EQ(t.cluster_row[7], t.cluster_row[0]);
  EXPECT_EQ(t.cluster_row[3], t.cluster_row[2]);
  EXPECT_EQ(t.cluster_row[6], t.cluster_row[5]);
  EXPECT_NE(t.cluster_row[0], t.cluster_row[2]);
  EXPECT_NE(t.cluster_row[0], t.cluster_row[4]);
  EXPECT_NE(t.cluster_row[0], t.cluster_row[5]);
  EXPECT_EQ(t.clusters, 4u);
  EXPECT_EQ(t.best_match_row[7], 0);  // a repeated row's best match is its first copy, score 1
  EXPECT_FLOAT_EQ(t.best_match_score[7], 1.0f);
}

// A multi-process dedup normalizes, embeds and scores in other company than one run does;
// its table equals run()'s only if no stage depends on that.
TEST(PublicDedup, StagesInSmallPiecesGiveRunsTable) {
  const Deduplicator& d = deduplicator();
  std::vector<std::string> normalized;
  for (const auto& row : kRows) normalized.push_back(d.normalize(row));
  const DistinctAddresses distinct = Deduplicator::number_addresses(normalized);
  ASSERT_EQ(distinct.texts.size(), kRows.size() - 1);  // the last row repeats the first

  LocatedAddresses located;  // in two halves
  const std::size_t half = distinct.texts.size() / 2;
  for (auto [first, last] : {std::pair{std::size_t{0}, half}, std::pair{half, distinct.texts.size()}}) {
    const LocatedAddresses part = d.embed_and_locate(std::span(distinct.texts).subspan(first, last - first));
    located.dim = part.dim;
    located.vectors.insert(located.vectors.end(), part.vectors.begin(), part.vectors.end());
    located.regions.insert(located.regions.end(), part.regions.begin(), part.regions.end());
  }
  const std::vector<CandidatePair> candidates = Deduplicator::block(distinct.texts, located, 20);
  ASSERT_FALSE(candidates.empty());
  std::vector<ScoredPair> scored;
  for (const CandidatePair& pair : candidates) {  // one pair at a time
    const std::vector<ScoredPair> one = d.score(distinct.texts, std::span(&pair, 1));
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].a, pair.a);
    EXPECT_EQ(one[0].b, pair.b);
    EXPECT_NEAR(one[0].p_not_match + one[0].p_partial_match + one[0].p_exact_match, 1.0f, 1e-5f);
    scored.push_back(one[0]);
  }
  const AddressClusters clusters = d.cluster(distinct.texts, scored, located.regions);
  const DedupTable staged = Deduplicator::table(distinct.address_of_row, clusters);
  const DedupTable whole = d.run(kRows);
  EXPECT_EQ(staged.cluster_row, whole.cluster_row);
  EXPECT_EQ(staged.cluster_size, whole.cluster_size);
  EXPECT_EQ(staged.best_match_row, whole.best_match_row);
  EXPECT_EQ(staged.best_match_score, whole.best_match_score);
  EXPECT_EQ(staged.clusters, whole.clusters);
}

TEST(PublicDedup, BadInputIsAnErrorThatNamesThePlace) {
  const Deduplicator& d = deduplicator();
  EXPECT_NE(error_of([&] { d.run(std::vector<std::string>{"文三路478号", " \u200B "}); }).find("row 2"), std::string::npos);
  EXPECT_NE(error_of([&] { d.run(std::vector<std::string>{}); }).find("no addresses"), std::string::npos);
  EXPECT_NE(error_of([&] { d.normalize("\xff\xfe"); }).find("UTF-8"), std::string::npos);
  EXPECT_NE(error_of([&] { Deduplicator::number_addresses({"文三路478号", ""}); }).find("row 2"), std::string::npos);

  const std::vector<std::string> texts = {"文三路478号", "天目山路100号"};
  const std::vector<CandidatePair> past_the_end = {{0, 1}, {1, 2}};
  EXPECT_NE(error_of([&] { d.score(texts, past_the_end); }).find("pair 1 (1, 2)"), std::string::npos);
  const std::vector<ScoredPair> itself = {{0, 0, 0, 1.0f, 0.0f, 0.0f}};
  const std::vector<StatedRegion> regions(texts.size());
  EXPECT_NE(error_of([&] { d.cluster(texts, itself, regions); }).find("scored pair 0 (0, 0)"), std::string::npos);
  EXPECT_NE(error_of([&] { d.cluster(texts, {}, std::vector<StatedRegion>(1)); }).find("1 regions"), std::string::npos);
  DedupOptions unknown_rule;
  unknown_rule.merge = "loose";
  EXPECT_NE(error_of([&] { d.cluster(texts, {}, regions, unknown_rule); }).find("loose"), std::string::npos);
  const LocatedAddresses short_vectors{4, std::vector<float>(4), regions};
  EXPECT_NE(error_of([&] { Deduplicator::block(texts, short_vectors, 20); }).find("vector values"), std::string::npos);
  const LocatedAddresses located{1, std::vector<float>(2, 1.0f), regions};
  EXPECT_NE(error_of([&] { Deduplicator::block(texts, located, 0); }).find("neighbours"), std::string::npos);
  AddressClusters wrong;
  wrong.cluster = {0, 5};
  wrong.best_match = {-1, -1};
  wrong.best_link = {0, 0};
  EXPECT_NE(error_of([&] { Deduplicator::table(std::vector<std::uint32_t>{0, 1}, wrong); }).find("cluster 5"),
            std::string::npos);
}

}  // namespace
}  // namespace geoalign
