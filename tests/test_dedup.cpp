// Dedup: average linkage that does not chain, the deduplicator on a small file with the
// shipped model, pairwise evaluation, and the dedup command's output and bad input.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>
#include <set>

#include <nlohmann/json.hpp>

#include "dedup/dedup_table.h"
#include "dedup/pair_evaluation.h"
#include "dedup/pair_scoring.h"
#include "dedup/threshold_chart.h"
#include "index/exact_neighbours.h"
#include "model/folder_aliases.h"
#include "runtime/rerank_scorer.h"
#include "support/cli_run.h"
#include "support/head_files.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;

// The engine as search and dedup load it by default: the rerank head decides pairs.
engine::EngineOptions rerank_options(Precision precision) {
  return {.precision = precision, .head = engine::Head::Rerank};
}

TEST(AverageLinkage, AChainDoesNotPullUnrelatedEndsTogether) {
  // 0~1 and 1~2 are strong, 0~2 is plainly not a match: 2 stays out.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> asked;
  dedup::AverageLinkage clustering(4, 0.5f, [&](auto pairs) {
    asked.insert(asked.end(), pairs.begin(), pairs.end());
    return std::vector<float>(pairs.size(), 0.0f);
  });
  const auto cluster = clustering.run({{0, 1, 0.95f}, {1, 2, 0.9f}});
  EXPECT_EQ(cluster[0], cluster[1]);
  EXPECT_NE(cluster[2], cluster[0]);
  EXPECT_EQ(cluster[3], 3u);
  // The unproposed cross pair was scored on demand.
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], (std::pair<std::uint32_t, std::uint32_t>{0, 2}));
  EXPECT_EQ(clustering.scored_on_demand(), 1u);
}

TEST(AverageLinkage, MergesWhenTheMeanLinkHolds) {
  dedup::AverageLinkage clustering(3, 0.5f, [](auto pairs) { return std::vector<float>(pairs.size(), 0.6f); });
  const auto cluster = clustering.run({{0, 1, 0.95f}, {1, 2, 0.9f}});
  EXPECT_EQ(cluster[0], 0u);
  EXPECT_EQ(cluster[1], 0u);
  EXPECT_EQ(cluster[2], 0u);
}

TEST(AverageLinkage, ClustersThatStateDifferentCitiesNeverMerge) {
  // 东方市三家村 ~ 三家村 ~ 儋州市三家村, every link strong: the village that names no city
  // joins one of them, and the two cities stay apart.
  const std::vector<dedup::StatedRegion> regions = {{460000, 469007}, {0, 0}, {460000, 460400}};
  dedup::AverageLinkage clustering(3, 0.5f, [](auto pairs) { return std::vector<float>(pairs.size(), 0.9f); }, regions);
  const auto cluster = clustering.run({{0, 1, 0.95f}, {1, 2, 0.9f}, {0, 2, 0.9f}});
  EXPECT_EQ(cluster[0], cluster[1]);
  EXPECT_NE(cluster[2], cluster[0]);
  // Without regions they all merge.
  dedup::AverageLinkage unconstrained(3, 0.5f, [](auto pairs) { return std::vector<float>(pairs.size(), 0.9f); });
  const auto one = unconstrained.run({{0, 1, 0.95f}, {1, 2, 0.9f}, {0, 2, 0.9f}});
  EXPECT_EQ(one, (std::vector<std::uint32_t>{0, 0, 0}));
}

TEST(AverageLinkage, ALargeClusterDoesNotTakeAnAddressOnOneStrongLinkAlone) {
  // 0..19 are one place, each linked to every other; 20 links to 19 alone, strongly, and
  // is plainly not that place: the mean must rest on more than that one link.
  std::vector<dedup::ScoredPair> pairs;
  for (std::uint32_t a = 0; a < 20; ++a) {
    for (std::uint32_t b = a + 1; b < 20; ++b) pairs.push_back({a, b, 0.9f});
  }
  pairs.push_back({19, 20, 0.85f});  // taken after the place has formed
  std::size_t asked = 0;
  dedup::AverageLinkage clustering(21, 0.5f, [&](auto missing) {
    asked += missing.size();
    return std::vector<float>(missing.size(), 0.0f);
  });
  const auto cluster = clustering.run(pairs);
  EXPECT_EQ(cluster[20], 20u);
  for (std::uint32_t i = 0; i < 20; ++i) EXPECT_EQ(cluster[i], 0u);
  EXPECT_EQ(asked, dedup::AverageLinkage::kObservedLinks - 1);  // with the one known link, 16 observed
}

// One large true cluster (a campus, a mall) cost |A| x |B| lookups per merge and scored
// thousands of cross pairs on demand at each: 1.7 million for 20,000 addresses of one
// place, 90 s. The means are now kept per pair of clusters.
TEST(AverageLinkage, OneLargePlaceScoresFewPairsOnDemand) {
  constexpr std::uint32_t n = 20000;
  std::mt19937 rng(7);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  std::vector<dedup::ScoredPair> pairs;
  std::uniform_real_distribution<float> link(0.6f, 1.0f);
  for (std::uint32_t a = 0; a < n; ++a) {
    for (int k = 0; k < 12; ++k) {
      const auto b = static_cast<std::uint32_t>(rng() % n);
      if (b != a && seen.emplace(std::min(a, b), std::max(a, b)).second) pairs.push_back({std::min(a, b), std::max(a, b), link(rng)});
    }
  }
  dedup::AverageLinkage clustering(n, 0.5f, [](auto missing) { return std::vector<float>(missing.size(), 0.8f); });
  const auto cluster = clustering.run(pairs);
  EXPECT_EQ(std::set<std::uint32_t>(cluster.begin(), cluster.end()).size(), 1u);
  EXPECT_LT(clustering.scored_on_demand(), pairs.size() / 4) << pairs.size() << " pairs given";
}

TEST(Dedup, ClustersOnePlaceWrittenManyWaysAndKeepsOthersApart) {
  const auto model = engine::Engine::load(source_dir() / "models/default", rerank_options(Precision::FP32));
  const std::vector<std::string> rows = {
      "杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦", "北京市海淀区中关村大街27号",
      "杭州市西湖区文三路478号华星科技大厦",  // the first row again
      "杭州市西湖区天目山路100号",            "\u200B北京市 海淀区中关村大街27号"};
  dedup::DedupOptions options;
  const auto r = dedup::deduplicate(*model, rows, options);
  EXPECT_EQ(r.threshold, dedup::default_threshold(*model, options.rule));  // none given: the head's
  ASSERT_EQ(r.address_of_row.size(), rows.size());
  EXPECT_EQ(r.texts.size(), 4u);  // rows 0 and 3 are one text; so are rows 2 and 5 after normalization
  auto cluster_of_row = [&](std::size_t i) { return r.cluster[r.address_of_row[i]]; };
  EXPECT_EQ(cluster_of_row(0), cluster_of_row(3));
  EXPECT_EQ(cluster_of_row(2), cluster_of_row(5));
  EXPECT_NE(cluster_of_row(0), cluster_of_row(2));
  EXPECT_NE(cluster_of_row(0), cluster_of_row(4));
  EXPECT_FALSE(r.candidates.empty());

  const std::vector<dedup::LabelledPair> labels = {
      {model->normalize(rows[0]), model->normalize(rows[3]), true},
      {model->normalize(rows[0]), model->normalize(rows[2]), false},
      {model->normalize(rows[0]), model->normalize(rows[4]), false},
      {"不在输入里", model->normalize(rows[0]), true}};
  const auto s = dedup::evaluate(r, labels);
  EXPECT_EQ(s.true_positives, 1u);
  EXPECT_EQ(s.false_positives, 0u);
  EXPECT_EQ(s.true_negatives, 2u);
  EXPECT_EQ(s.not_in_input, 1u);
  EXPECT_DOUBLE_EQ(s.f1(), 1.0);
  EXPECT_DOUBLE_EQ(s.candidate_recall(), 1.0);
}

// Rows 0, 2 and 3 are one address, row 1 another that links to it at 0.4.
TEST(DedupTable, CopiesOfOneAddressAreEachOthersBestMatch) {
  dedup::DedupResult r;
  r.texts = {"杭州市文三路478号", "文三路478号"};
  r.address_of_row = {0, 1, 0, 0};
  r.cluster = {0, 1};
  r.best_match = {1, 0};
  r.best_link = {0.4f, 0.4f};
  const dedup::DedupTable t = dedup::dedup_table(r);
  EXPECT_EQ(t.best_match_row, (std::vector<std::int64_t>{2, 0, 0, 0}));
  EXPECT_EQ(t.best_match_score, (std::vector<float>{1.0f, 0.4f, 1.0f, 1.0f}));
  EXPECT_EQ(t.cluster_row, (std::vector<std::size_t>{0, 1, 0, 0}));
  EXPECT_EQ(t.cluster_size, (std::vector<std::size_t>{3, 1, 3, 3}));
  EXPECT_EQ(t.clusters, 2u);
}

// The Python bindings hand the table arrays built elsewhere (geoalign.dask): arrays that
// disagree were indexed with as they came, out of bounds.
TEST(DedupTable, ArraysThatDisagreeAreAnErrorNotAReadOutOfBounds) {
  const auto error_of = [](const dedup::DedupResult& r) {
    try {
      dedup::dedup_table(r);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  dedup::DedupResult good;
  good.texts = {"a", "b"};
  good.address_of_row = {0, 1};
  good.cluster = {0, 0};
  good.best_match = {1, 0};
  good.best_link = {0.9f, 0.9f};
  EXPECT_EQ(error_of(good), "(no error)");
  auto r = good;
  r.cluster = {0, 7};
  EXPECT_NE(error_of(r).find("address 1 is in cluster 7"), std::string::npos) << error_of(r);
  r = good;
  r.best_match = {1, 2};
  EXPECT_NE(error_of(r).find("best match 2 is not an address"), std::string::npos) << error_of(r);
  r = good;
  r.best_link = {0.9f};
  EXPECT_NE(error_of(r).find("2 best matches and 1 best links"), std::string::npos) << error_of(r);
  r = good;
  r.address_of_row = {0, 5};
  EXPECT_NE(error_of(r).find("row 1 names address 5 of 2"), std::string::npos) << error_of(r);
}

TEST(ExactNeighbours, AgreeWithAPlainScanAndBreakTiesByRowNumber) {
  constexpr std::size_t n = 300, dim = 24, k = 7;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> rows(n * dim);
  for (auto& x : rows) x = normal(rng);
  // Rows 10 and 11 repeat row 5: a tie that must go to the lower row number.
  for (std::size_t r : {10u, 11u}) std::copy_n(rows.begin() + 5 * dim, dim, rows.begin() + static_cast<std::ptrdiff_t>(r * dim));
  const auto found = index::exact_neighbours(rows, dim, k);
  ASSERT_EQ(found.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, std::uint32_t>> all;
    for (std::uint32_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double dot = 0;
      for (std::size_t d = 0; d < dim; ++d) dot += double(rows[i * dim + d]) * rows[j * dim + d];
      all.emplace_back(-dot, j);
    }
    std::sort(all.begin(), all.end());
    ASSERT_EQ(found[i].size(), k);
    for (std::size_t t = 0; t < k; ++t) {
      EXPECT_NEAR(found[i][t].score, -all[t].first, 1e-3) << "row " << i << " rank " << t;
      if (std::abs(all[t].first - all[t + 1].first) > 1e-4 && (t == 0 || std::abs(all[t].first - all[t - 1].first) > 1e-4)) {
        EXPECT_EQ(found[i][t].record, all[t].second) << "row " << i << " rank " << t;
      }
    }
  }
  EXPECT_EQ(found[5][0].record, 10u);
  EXPECT_EQ(found[5][1].record, 11u);
  EXPECT_EQ(found[10][0].record, 5u);
}

// One rerank implementation: `score --head rerank` (pairs of text), search's rerank
// (engine::Engine::score over parsed addresses) and dedup's pair scoring give the same
// probabilities for the same pairs in the symmetric reading, which is the mean of the two
// ordered readings and the same to the bit whichever address comes first; and the head
// tells the clear cases apart.
TEST(Dedup, ScoreSearchAndDedupShareOneRerankPath) {
  const auto dir = source_dir() / "models/default";
  if (!std::filesystem::exists(dir / match::MatchHead::kRerankFileName)) GTEST_SKIP() << "no shipped rerank head";
  const auto model = engine::Engine::load(dir, rerank_options(Precision::FP32));
  ASSERT_TRUE(model->fast_pairs());
  const auto rerank = runtime::RerankScorer::load(dir, model::load_folder_aliases(dir));
  const std::vector<std::string> texts = {"杭州市西湖区文三路478号华星科技大厦", "\u200B文三路478号 华星科技大厦",
                                          "北京市海淀区中关村大街27号", "广州市天河区体育西路191号",
                                          "杭州市西湖区文三路478号华星科技大厦"};
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> numbered = {{0, 1}, {1, 0}, {0, 2}, {2, 3}, {0, 4}};
  std::vector<AddressPair> as_text;
  std::vector<engine::Address> addresses;
  for (const auto& t : texts) addresses.push_back(model->prepare(model->normalize(t)));
  std::vector<std::pair<const engine::Address*, const engine::Address*>> as_parsed;
  std::vector<dedup::AddressPair> as_numbers;
  for (const auto& [a, b] : numbered) {
    as_text.push_back({texts[a], texts[b]});
    as_parsed.emplace_back(&addresses[a], &addresses[b]);
    as_numbers.push_back({a, b});
  }
  const auto by_text = rerank.score(as_text);
  const auto by_parse = model->score(as_parsed);
  const auto by_parse_ordered = model->score(as_parsed, PairReading::Ordered);
  const auto evidence = dedup::score_pairs(*model, addresses, as_numbers);
  ASSERT_EQ(by_text.size(), numbered.size());
  for (std::size_t i = 0; i < numbered.size(); ++i) {
    EXPECT_EQ(by_parse[i].label, by_text[i].label) << i;
    EXPECT_EQ(by_parse[i].probabilities, by_text[i].probabilities) << i;
    EXPECT_EQ(evidence[i].p_exact_match, by_text[i].p_exact_match) << i;
    EXPECT_EQ(evidence[i].p_not_match, by_text[i].p_not_match) << i;
    const std::vector<AddressPair> one = {as_text[i]}, swapped = {{as_text[i].b, as_text[i].a}};
    const auto ab = rerank.score(one, PairReading::Ordered).front();
    const auto ba = rerank.score(swapped, PairReading::Ordered).front();
    EXPECT_EQ(by_parse_ordered[i].probabilities, ab.probabilities) << i;
    EXPECT_EQ(rerank.score(swapped).front().probabilities, by_text[i].probabilities) << i;
    if (i != 4) {  // the same text twice is certain either way
      EXPECT_FLOAT_EQ(by_text[i].p_exact_match, 0.5f * (ab.p_exact_match + ba.p_exact_match)) << i;
      EXPECT_FLOAT_EQ(by_text[i].p_not_match, 0.5f * (ab.p_not_match + ba.p_not_match)) << i;
    }
  }
  EXPECT_EQ(by_text[4].label, "exact_match");  // the same text twice
  EXPECT_EQ(by_text[3].label, "not_match");    // two cities
}

// Which of two addresses came first in the file must not decide whether they merge: dedup
// reads pairs in the symmetric reading.
// Search and dedup with --head match: the cross-encoder and the match head read a pair as
// Matcher does, in the symmetric reading (one encoder pass: the head reads canonical
// order) and read as given.
TEST(Dedup, TheMatchHeadPathIsMatchersInEitherReading) {
  const auto dir = source_dir() / "models/default";
  const auto model = engine::Engine::load(dir, {.precision = Precision::FP32, .head = engine::Head::Match});
  ASSERT_FALSE(model->fast_pairs());
  const std::vector<std::string> texts = {"杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦",
                                          "北京市海淀区中关村大街27号"};
  std::vector<engine::Address> addresses;
  for (const auto& t : texts) addresses.push_back(model->prepare(model->normalize(t)));
  const std::vector<std::pair<const engine::Address*, const engine::Address*>> pairs = {
      {&addresses[0], &addresses[1]}, {&addresses[1], &addresses[0]}, {&addresses[0], &addresses[2]}};
  const std::vector<AddressPair> as_text = {{texts[0], texts[1]}, {texts[1], texts[0]}, {texts[0], texts[2]}};
  for (const PairReading reading : {PairReading::Symmetric, PairReading::Ordered}) {
    // The ordered reading of the folder's one match head (not the ordered head beside it).
    TempDir one_head;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().filename() != match::MatchHead::kOrderedFileName) {
        std::filesystem::create_symlink(entry.path(), one_head / entry.path().filename());
      }
    }
    MatcherOptions options;
    options.precision = Precision::FP32;
    options.reading = reading;
    const auto want = Matcher::load(one_head.path(), options).score(as_text);
    const auto got = model->score(pairs, reading);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      EXPECT_EQ(got[i].label, want[i].label) << i;
      for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(got[i].probabilities[k], want[i].probabilities[k], 1e-5) << i;
    }
    if (reading == PairReading::Symmetric) {
      EXPECT_EQ(got[0].probabilities, got[1].probabilities);
    }
  }
}

TEST(Dedup, ClustersDoNotDependOnRowOrder) {
  const auto model = engine::Engine::load(source_dir() / "models/default", rerank_options(Precision::FP32));
  const std::vector<std::string> rows = {
      "河南省巩义市新华路街道桐和街6号钢苑新区3号楼一单元", "钢苑新区3号楼", "巩义市桐和街",
      "浙江省杭州市西湖区文三路478号华星科技大厦5楼", "华星科技大厦", "文三路478号",
      "江苏省南京市鼓楼区中山路100号", "中山路100号南京图书馆", "南京市玄武区中山路100号"};
  auto partition = [&](const std::vector<std::string>& in) {
    const auto r = dedup::deduplicate(*model, in, dedup::DedupOptions{});
    std::map<std::uint32_t, std::set<std::string>> clusters;
    for (std::size_t a = 0; a < r.texts.size(); ++a) clusters[r.cluster[a]].insert(r.texts[a]);
    std::set<std::set<std::string>> out;
    for (auto& [id, texts] : clusters) out.insert(texts);
    return out;
  };
  const auto forward = partition(rows);
  EXPECT_EQ(partition(std::vector<std::string>(rows.rbegin(), rows.rend())), forward);
  std::vector<std::string> shuffled = rows;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  EXPECT_EQ(partition(shuffled), forward);

  // Each pair's evidence is the same whichever address is numbered first.
  const std::vector<engine::Address> ab = {model->prepare(model->normalize(rows[0])), model->prepare(model->normalize(rows[1]))};
  const std::vector<engine::Address> ba = {ab[1], ab[0]};
  const dedup::AddressPair pair{0, 1};
  const auto e1 = dedup::score_pairs(*model, ab, std::span(&pair, 1))[0];
  const auto e2 = dedup::score_pairs(*model, ba, std::span(&pair, 1))[0];
  EXPECT_EQ(e1.label_id, e2.label_id);
  EXPECT_FLOAT_EQ(e1.p_exact_match, e2.p_exact_match);
  EXPECT_FLOAT_EQ(e1.p_partial_match, e2.p_partial_match);
  EXPECT_FLOAT_EQ(e1.p_not_match, e2.p_not_match);
}

// An abbreviation and its expansion are one place in dedup's pair scoring too (the
// addresses' parses are taken again from the reconciled texts), and a user's own alias
// joins them.
TEST(Dedup, AbbreviationsAndTheirExpansionsAreOnePlace) {
  TempDir dir;
  write_file(dir / "mine.tsv", "西湖银泰\t西湖银泰城购物中心\n");
  const auto model = engine::Engine::load(source_dir() / "models/default",
                                          {.precision = Precision::FP32, .aliases = dir / "mine.tsv", .head = engine::Head::Rerank});
  const std::vector<std::pair<std::string, std::string>> same = {
      {"中国工商银行深圳分行", "工行深圳分行"}, {"北京市海淀区北京大学", "北京市海淀区北大"},
      {"杭州西湖银泰城购物中心", "杭州西湖银泰"}};
  for (const auto& [full, abbreviated] : same) {
    const engine::Address a = model->prepare(model->normalize(full)), b = model->prepare(model->normalize(abbreviated));
    const std::vector<std::pair<const engine::Address*, const engine::Address*>> pairs = {{&a, &b}, {&b, &a}};
    for (const auto& r : model->score(pairs)) {
      EXPECT_EQ(r.label, "exact_match") << abbreviated;
      EXPECT_FLOAT_EQ(r.p_exact_match, 1.0f) << abbreviated;
    }
  }
}

// A multi-process dedup embeds and scores its addresses in other company than one run
// does; it finds the same clusters only if nothing depends on that company.
TEST(Dedup, StagesRunOnSplitBatchesGiveTheSameResultAsOneRun) {
  const std::vector<std::string> rows = {
      "杭州市西湖区文三路478号华星科技大厦", "文三路478号华星大厦", "北京市海淀区中关村大街27号", "海淀中关村大街27号",
      "杭州市西湖区天目山路100号", "天目山路100号", "上海市浦东新区世纪大道100号环球金融中心", "世纪大道100号上海环球金融中心"};
  for (Precision precision : {Precision::FP32, Precision::Auto}) {
    const auto model = engine::Engine::load(source_dir() / "models/default", rerank_options(precision));
    dedup::DedupOptions options;
    const auto whole = dedup::deduplicate(*model, rows, options);
    const std::size_t n = whole.texts.size();

    std::vector<float> vectors;  // one address at a time
    std::vector<engine::Address> addresses;
    std::vector<dedup::StatedRegion> regions;
    for (const auto& t : whole.texts) {
      const std::string_view view = t;
      const auto v = model->embed(std::span(&view, 1));
      vectors.insert(vectors.end(), v.begin(), v.end());
      addresses.push_back(model->prepare(t));
      regions.push_back(dedup::stated_region(addresses.back().parsed.admin));
    }
    const std::vector<std::string_view> views(whole.texts.begin(), whole.texts.end());
    EXPECT_EQ(vectors, model->embed(views)) << precision_name(precision) << ": an embedding depends on its batch";
    const auto candidates = dedup::block(whole.texts, regions, vectors, options.neighbours);
    ASSERT_EQ(candidates, whole.candidates);
    std::vector<dedup::PairEvidence> scored;
    for (const auto& pair : candidates) {  // one pair at a time
      const auto e = dedup::score_pairs(*model, addresses, std::span(&pair, 1));
      scored.push_back(e[0]);
    }
    const auto entities = dedup::cluster_entities(n, scored, options.rule, whole.threshold, [&](auto pairs) {
      return dedup::score_pairs(*model, addresses, pairs);
    }, regions);
    EXPECT_EQ(entities.cluster, whole.cluster);
    EXPECT_EQ(entities.best_match, whole.best_match);
    EXPECT_EQ(entities.best_link, whole.best_link);
  }
}

TEST(CliDedup, OneRowPerInputRowInOrderWithAHeader) {
  TempDir dir;
  write_file(dir / "in.tsv", "x1\t杭州市西湖区文三路478号华星科技大厦\nx2\t文三路478号华星大厦\nx3\t北京市海淀区中关村大街27号\n");
  const auto r = run_cli("dedup --model " + (source_dir() / "models/default").string() + " --input " +
                         (dir / "in.tsv").string() + " --explain " + (dir / "why.tsv").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 4u) << r.out;
  EXPECT_EQ(out[0], "id\taddress\tcluster_id\tcluster_size\tbest_match_id\tbest_match_score");
  EXPECT_EQ(out[1].substr(0, 3), "x1\t");
  EXPECT_EQ(out[2].substr(0, 3), "x2\t");
  EXPECT_EQ(out[3].substr(0, 3), "x3\t");
  EXPECT_NE(out[3].find("\tx3\t1\t"), std::string::npos) << out[3];
  EXPECT_NE(read_file(dir / "why.tsv").find("id_a\tid_b"), std::string::npos);
  // The two Hangzhou rows are one place: the explanation names the pair and its label.
  EXPECT_NE(read_file(dir / "why.tsv").find("x1\tx2\t"), std::string::npos) << read_file(dir / "why.tsv");
  // --scored-pairs: every scored pair, also those across clusters, with its link.
  const auto with_pairs = run_cli("dedup --model " + (source_dir() / "models/default").string() + " --input " +
                                  (dir / "in.tsv").string() + " --scored-pairs " + (dir / "pairs.tsv").string());
  ASSERT_EQ(with_pairs.exit_code, 0) << with_pairs.err;
  const auto scored = lines(read_file(dir / "pairs.tsv"));
  ASSERT_GE(scored.size(), 2u);
  EXPECT_NE(scored[0].find("\tlink\tsame_cluster"), std::string::npos) << scored[0];
  bool joined = false, apart = false;
  for (std::size_t i = 1; i < scored.size(); ++i) {
    joined = joined || (scored[i].rfind("x1\tx2\t", 0) == 0 && scored[i].back() == '1');
    apart = apart || (scored[i].find("x3\t") != std::string::npos && scored[i].back() == '0');
  }
  EXPECT_TRUE(joined) << read_file(dir / "pairs.tsv");
  EXPECT_TRUE(apart) << read_file(dir / "pairs.tsv");
  // --explain says what joined each pair inside a cluster: its own link at the threshold
  // (own_link) or average linkage (average_linkage), as the link column of --scored-pairs reads.
  const auto both = run_cli("dedup --threshold 0.5 --model " + (source_dir() / "models/default").string() + " --input " +
                            (dir / "in.tsv").string() + " --explain " + (dir / "why.tsv").string() + " --scored-pairs " +
                            (dir / "pairs.tsv").string());
  ASSERT_EQ(both.exit_code, 0) << both.err;
  std::map<std::string, double> link_of_pair;
  for (const auto& line : lines(read_file(dir / "pairs.tsv"))) {
    const auto cells = split_tabs(line);
    if (cells[0] != "id_a") link_of_pair[cells[0] + "|" + cells[1]] = std::stod(cells[8]);
  }
  const auto why = lines(read_file(dir / "why.tsv"));
  ASSERT_GE(why.size(), 2u);
  EXPECT_EQ(split_tabs(why[0]).back(), "joined_by");
  for (std::size_t i = 1; i < why.size(); ++i) {
    const auto cells = split_tabs(why[i]);
    ASSERT_EQ(cells.size(), 9u) << why[i];
    EXPECT_EQ(cells[8], link_of_pair.at(cells[0] + "|" + cells[1]) >= 0.5 ? "own_link" : "average_linkage") << why[i];
  }
  const auto checked = run_cli("dedup --exhaustive-check --model " + (source_dir() / "models/default").string() +
                               " --input " + (dir / "in.tsv").string());
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_NE(checked.err.find("exhaustive scoring links 1 pairs; blocking proposed 1 of them"), std::string::npos)
      << checked.err;
  // --missed lists what blocking lost (nothing here), and only beside the check.
  const std::string model = " --model " + (source_dir() / "models/default").string() + " --input " + (dir / "in.tsv").string();
  const auto missed = run_cli("dedup --exhaustive-check --missed " + (dir / "missed.tsv").string() + model);
  ASSERT_EQ(missed.exit_code, 0) << missed.err;
  EXPECT_EQ(lines(read_file(dir / "missed.tsv")).size(), 1u);  // the header
  const auto alone = run_cli("dedup --missed " + (dir / "missed.tsv").string() + model);
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.err.find("--missed needs --exhaustive-check"), std::string::npos) << alone.err;
}

// Without --threshold, dedup merges at the link the head's trainer chose for the merge
// rule (models/default's rerank head has one), else at 0.5.
TEST(CliDedup, ThresholdDefaultsToTheHeadsOwn) {
  TempDir dir;
  std::filesystem::copy(source_dir() / "models/default", dir / "model", std::filesystem::copy_options::recursive);
  write_file(dir / "in.tsv", "x1\t杭州市西湖区文三路478号华星科技大厦\nx2\t文三路478号华星大厦\n");
  const std::string args = " --model " + (dir / "model").string() + " --input " + (dir / "in.tsv").string();
  auto head = nlohmann::json::parse(read_file(dir / "model/rerank_head.json"));
  head["link_thresholds"] = {{"exact", 1.0}, {"partial", 0.4}};  // no link reaches 1
  write_file(dir / "model/rerank_head.json", head.dump());
  const auto strict = run_cli("dedup" + args);
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(lines(strict.out)[2].find("\tx2\t1\t"), std::string::npos) << strict.out;  // kept apart
  EXPECT_NE(strict.err.find("at threshold 1.00 (the head's default)"), std::string::npos) << strict.err;
  const auto partial = run_cli("dedup --merge partial" + args);
  EXPECT_NE(partial.err.find("at threshold 0.40 (the head's default)"), std::string::npos) << partial.err;
  const auto given = run_cli("dedup --threshold 0.5" + args);
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(lines(given.out)[2].find("\tx1\t2\t"), std::string::npos) << given.out;  // merged
  EXPECT_NE(given.err.find("at threshold 0.50 (given)"), std::string::npos) << given.err;
  // A head without link thresholds: the default, and the summary says so rather than
  // crediting the head.
  head.erase("link_thresholds");
  write_file(dir / "model/rerank_head.json", head.dump());
  const auto without = run_cli("dedup" + args);
  EXPECT_NE(without.err.find("at threshold 0.50 (the default)"), std::string::npos) << without.err;
}

using dedup::choose_threshold;
using dedup::is_threshold_target;
using dedup::PairwiseScores;
using dedup::ThresholdPoint;

ThresholdPoint point(float t, std::size_t tp, std::size_t fp, std::size_t fn) {
  PairwiseScores s;
  s.true_positives = tp;
  s.false_positives = fp;
  s.false_negatives = fn;
  return {t, s};
}

// Worked by hand: at 0.2, 0.4, 0.6, 0.8, precision 0.667, 0.8, 1, 1; recall 1, 1, 0.75,
// 0.5; F1 0.8, 0.889, 0.857, 0.667.
TEST(ThresholdCurve, TargetsPickTheirPoint) {
  const std::vector<ThresholdPoint> curve = {point(0.2f, 4, 2, 0), point(0.4f, 4, 1, 0), point(0.6f, 3, 0, 1),
                                             point(0.8f, 2, 0, 2)};
  EXPECT_FLOAT_EQ(choose_threshold(curve, "best-f1").value(), 0.4f);
  EXPECT_FLOAT_EQ(choose_threshold(curve, "precision>=0.95").value(), 0.6f);  // recall 0.75 beats 0.5
  EXPECT_FLOAT_EQ(choose_threshold(curve, "precision>=0.7").value(), 0.4f);   // recall 1 at 0.75 precision
  EXPECT_FLOAT_EQ(choose_threshold(curve, "recall>=1").value(), 0.4f);        // precision 0.8 beats 0.667
  // A tie goes to the threshold nearer 0.5.
  const std::vector<ThresholdPoint> tied = {point(0.3f, 3, 1, 1), point(0.6f, 3, 1, 1), point(0.9f, 1, 0, 3)};
  EXPECT_FLOAT_EQ(choose_threshold(tied, "best-f1").value(), 0.6f);
  EXPECT_FALSE(choose_threshold(std::vector<ThresholdPoint>{point(0.5f, 1, 1, 0)}, "precision>=0.9"));
  for (const char* bad : {"precision>=2", "precision>=", "recall>=0.5x", "f1>=0.5", "best"}) {
    EXPECT_THROW(choose_threshold(curve, bad), Error) << bad;
  }
  EXPECT_TRUE(is_threshold_target("best-f1"));
  EXPECT_FALSE(is_threshold_target("0.5"));
}

// Each point of the curve is what a whole run at that threshold gives.
TEST(CliDedup, TheCurveIsWhatARunAtEachThresholdGives) {
  TempDir dir;
  write_file(dir / "in.tsv",
             "x1\t杭州市西湖区文三路478号华星科技大厦\nx2\t文三路478号华星大厦\nx3\t北京市海淀区中关村大街27号\n"
             "x4\t北京海淀中关村大街27号\nx5\t北京市海淀区中关村大街29号\nx6\t杭州市西湖区文三路478号\n");
  write_file(dir / "labels.tsv",
             "杭州市西湖区文三路478号华星科技大厦\t文三路478号华星大厦\t1\n北京市海淀区中关村大街27号\t北京海淀中关村大街27号\t1\n"
             "北京市海淀区中关村大街27号\t北京市海淀区中关村大街29号\t0\n杭州市西湖区文三路478号\t文三路478号华星大厦\t0\n");
  const std::string args = " --model " + (source_dir() / "models/default").string() + " --input " +
                           (dir / "in.tsv").string() + " --eval " + (dir / "labels.tsv").string();
  const auto r = run_cli("dedup --curve " + (dir / "curve.svg").string() + args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto svg = read_file(dir / "curve.svg");
  EXPECT_TRUE(svg.starts_with("<svg") && svg.ends_with("</svg>\n")) << svg.substr(0, 80);
  for (const char* t : {"0.20", "0.55", "0.90"}) {
    // The curve's line for t: "0.20     0.6667 ..."; a run at t reports its own figures.
    const auto at = r.err.find(std::string("\n ") + t);
    ASSERT_NE(at, std::string::npos) << r.err;
    std::istringstream line(r.err.substr(at + 1, r.err.find('\n', at + 1) - at - 1));
    std::vector<std::string> cells;
    for (std::string cell; line >> cell;) {
      if (cell != "*") cells.push_back(cell);
    }
    ASSERT_GE(cells.size(), 4u) << line.str();
    const auto run = run_cli("dedup --threshold " + std::string(t) + args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    char want[128];
    std::snprintf(want, sizeof want, "precision %s recall %s F1 %s", cells[1].c_str(), cells[2].c_str(), cells[3].c_str());
    EXPECT_NE(run.err.find(want), std::string::npos) << line.str() << "\n" << run.err;
  }
  const auto best = run_cli("dedup --threshold best-f1" + args);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_NE(best.err.find("(best-f1 on the labels)"), std::string::npos) << best.err;
  EXPECT_NE(best.err.find("F1 1.0000"), std::string::npos) << best.err;

  const std::string plain = " --model " + (source_dir() / "models/default").string() + " --input " + (dir / "in.tsv").string();
  EXPECT_EQ(run_cli("dedup --threshold best-f1" + plain).exit_code, 2);  // a target needs labels
  EXPECT_EQ(run_cli("dedup --curve " + (dir / "c.svg").string() + plain).exit_code, 2);
  const auto unreadable = run_cli("dedup --threshold 'precision>=2'" + args);
  EXPECT_EQ(unreadable.exit_code, 2);  // before the run, not after it
  EXPECT_NE(unreadable.err.find("X must be a number in (0, 1]"), std::string::npos) << unreadable.err;
}

TEST(CliDedup, BadLinesAreReportedAndEitherStopOrAreSkipped) {
  TempDir dir;
  write_file(dir / "in.tsv", "a\t杭州市文三路478号\n\na\t北京市海淀区\nb\t\xff\xfe\nc\t上海市浦东新区\n");
  const std::string model = " --model " + (source_dir() / "models/default").string();
  const auto stop = run_cli("dedup" + model + " --input " + (dir / "in.tsv").string());
  EXPECT_EQ(stop.exit_code, 1);
  EXPECT_NE(stop.err.find("in.tsv:2: empty address"), std::string::npos) << stop.err;
  const auto skip = run_cli("dedup --on-error skip" + model + " --input " + (dir / "in.tsv").string());
  ASSERT_EQ(skip.exit_code, 0) << skip.err;
  EXPECT_NE(skip.err.find("in.tsv:3: id \"a\" already used on line 1"), std::string::npos) << skip.err;
  EXPECT_NE(skip.err.find("in.tsv:4: invalid UTF-8"), std::string::npos) << skip.err;
  EXPECT_EQ(lines(skip.out).size(), 3u);  // header, a, c
  // Blank in any script, or once normalized (an HTML space): named by file and line, and
  // skipped like any bad line, before the long work starts.
  write_file(dir / "blank.tsv", "a\t杭州市文三路478号\nb\t\u3000\nc\t&nbsp;\nd\t上海市浦东新区\n");
  const auto blank = run_cli("dedup" + model + " --input " + (dir / "blank.tsv").string());
  EXPECT_EQ(blank.exit_code, 1);
  EXPECT_NE(blank.err.find("blank.tsv:2: empty address"), std::string::npos) << blank.err;
  const auto blank_skipped = run_cli("dedup --on-error skip" + model + " --input " + (dir / "blank.tsv").string());
  ASSERT_EQ(blank_skipped.exit_code, 0) << blank_skipped.err;
  EXPECT_NE(blank_skipped.err.find("blank.tsv:3: empty address"), std::string::npos)
      << blank_skipped.err;
  EXPECT_EQ(lines(blank_skipped.out).size(), 3u);  // header, a, d
  // A bad label file fails with its line, before any address is clustered.
  write_file(dir / "labels.tsv", "杭州市文三路478号\t上海市浦东新区\t0\n杭州\t上海\tyes\n");
  const auto labels = run_cli("dedup --on-error skip" + model + " --input " + (dir / "blank.tsv").string() +
                              " --eval " + (dir / "labels.tsv").string());
  EXPECT_EQ(labels.exit_code, 1);
  EXPECT_NE(labels.err.find("labels.tsv:2: unknown label \"yes\""), std::string::npos) << labels.err;
  EXPECT_TRUE(labels.out.empty()) << labels.out;
  // Labels named in Chinese, as eval reads them (CCKS files, MGeo folders), mean what the
  // English names do.
  const std::string pairs[] = {"杭州市文三路478号\t杭州文三路478号\t", "杭州市文三路478号\t上海市浦东新区\t",
                               "上海市浦东新区\t北京市海淀区\t"};
  write_file(dir / "english.tsv", pairs[0] + "exact_match\n" + pairs[1] + "not_match\n" + pairs[2] + "partial_match\n");
  write_file(dir / "chinese.tsv", pairs[0] + "完全匹配\n" + pairs[1] + "不匹配\n" + pairs[2] + "部分匹配\n");
  write_file(dir / "four.tsv", "杭州市文三路478号\n杭州文三路478号\n上海市浦东新区\n北京市海淀区\n");
  const auto with_labels = [&](const char* file) {
    const auto r = run_cli("dedup" + model + " --input " + (dir / "four.tsv").string() + " --eval " +
                           (dir / file).string() + " --out /dev/null");
    EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
    const auto at = r.err.rfind("precision ");  // the closing line's, after the curve's table
    return at == std::string::npos ? std::string() : r.err.substr(at);
  };
  const auto english = with_labels("english.tsv");
  EXPECT_NE(english.find("(TP 1 FP 0 FN 0)"), std::string::npos) << english;
  EXPECT_EQ(with_labels("chinese.tsv"), english);
  // A line without an id is named by its line number, which line 1 has taken as its id.
  write_file(dir / "numbered.tsv", "2\t杭州市文三路478号\n上海市浦东新区\n北京市海淀区\n");
  const auto taken = run_cli("dedup" + model + " --input " + (dir / "numbered.tsv").string());
  EXPECT_EQ(taken.exit_code, 1);
  EXPECT_NE(taken.err.find("numbered.tsv:2: this line has no id, and its line number is another line's id"), std::string::npos) << taken.err;
  const auto taken_skipped = run_cli("dedup --on-error skip" + model + " --input " + (dir / "numbered.tsv").string());
  ASSERT_EQ(taken_skipped.exit_code, 0) << taken_skipped.err;
  EXPECT_EQ(lines(taken_skipped.out).size(), 3u);  // header, 2, 3
  write_file(dir / "empty.tsv", "");
  const auto empty = run_cli("dedup" + model + " --input " + (dir / "empty.tsv").string());
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("no addresses to deduplicate"), std::string::npos) << empty.err;
}

// Such a head threw inside dedup's and search's parallel loops, which ended the process
// (std::terminate); it is now refused when the folder is loaded, with the file named.
TEST(CliDedup, ARerankHeadThatReadsTheEncoderIsAnErrorNotADeadProcess) {
  TempDir dir;
  const auto model = default_model_whose_head_reads_the_encoder(dir, "rerank_head.json");
  write_file(dir / "in.tsv", "杭州市西湖区文三路478号华星科技大厦\n文三路478号华星大厦\n");
  const std::string refused = "rerank_head.json: reads the encoder's probabilities (encoder_p*)";
  const auto dedup = run_cli("dedup --model " + model.string() + " --input " + (dir / "in.tsv").string());
  EXPECT_EQ(dedup.exit_code, 1) << dedup.err;
  EXPECT_NE(dedup.err.find(refused), std::string::npos) << dedup.err;
  const auto build = run_cli("index build --model " + model.string() + " --input " + (dir / "in.tsv").string() +
                             " --out " + (dir / "bad_ix").string());
  EXPECT_EQ(build.exit_code, 1) << build.err;
  EXPECT_NE(build.err.find(refused), std::string::npos) << build.err;
  // An index built with the shipped folder, searched with the linked one (the same weights).
  const auto good = run_cli("index build --model " + (source_dir() / "models/default").string() + " --input " +
                            (dir / "in.tsv").string() + " --out " + (dir / "ix").string());
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const auto search = run_cli("search --index " + (dir / "ix").string() + " --model " + model.string(), "文三路478号\n");
  EXPECT_EQ(search.exit_code, 1) << search.err;
  EXPECT_NE(search.err.find(refused), std::string::npos) << search.err;
  // `score` reads the match head, which may read the encoder (this one does not): unaffected.
  const auto score = run_cli("score --model " + model.string(), "杭州文三路478号\t文三路478号\n");
  EXPECT_EQ(score.exit_code, 0) << score.err;
}

TEST(CliIndex, BuildsSearchesAndReportsBadInput) {
  TempDir dir;
  write_file(dir / "ref.tsv", "hz1\t杭州市西湖区文三路478号华星科技大厦\nbj1\t北京市朝阳区建国路88号SOHO现代城\n\nbj1\t重复\n");
  const std::string model = (source_dir() / "models/default").string();
  const std::string ix = (dir / "ix").string();
  const auto fail = run_cli("index build --model " + model + " --input " + (dir / "ref.tsv").string() + " --out " + ix);
  EXPECT_EQ(fail.exit_code, 1);
  // Every bad line is listed before the run stops, not only the first.
  EXPECT_NE(fail.err.find("ref.tsv:3: empty address"), std::string::npos) << fail.err;
  EXPECT_NE(fail.err.find("ref.tsv:4: id \"bj1\" already used on line 2"), std::string::npos) << fail.err;
  EXPECT_NE(fail.err.find("index stopped: 2 bad lines in"), std::string::npos) << fail.err;
  EXPECT_NE(fail.err.find("the first on line 3"), std::string::npos) << fail.err;
  const auto built = run_cli("index build --on-error skip --model " + model + " --input " + (dir / "ref.tsv").string() +
                             " --out " + ix);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.err.find("ref.tsv:4: id \"bj1\" already used on line 2"), std::string::npos) << built.err;
  // A line without an id is named by its line number, which no other line's id may be,
  // and which must not be an id the index holds.
  write_file(dir / "more.tsv", "杭州市上城区解放路1号\n1\t杭州市上城区解放路2号\nhz1\t杭州市上城区解放路3号\n杭州市上城区解放路4号\n");
  const auto taken = run_cli("index add --index " + ix + " --input " + (dir / "more.tsv").string());
  EXPECT_EQ(taken.exit_code, 1);
  EXPECT_NE(taken.err.find("more.tsv:1: this line has no id, and its line number is another line's id"), std::string::npos)
      << taken.err;
  EXPECT_NE(taken.err.find("more.tsv:3: id \"hz1\" is already in the index"), std::string::npos) << taken.err;
  const auto added = run_cli("index add --on-error skip --index " + ix + " --input " + (dir / "more.tsv").string());
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.err.find("2 addresses added, 4 in"), std::string::npos) << added.err;
  const auto by_line = run_cli("search --k 1 --index " + ix, "杭州市上城区解放路4号\n");
  EXPECT_NE(by_line.out.find("\"id\":\"4\""), std::string::npos) << by_line.out;
  write_file(dir / "again.tsv", "x\n杭州市上城区解放路9号\n杭州市上城区解放路4号\n杭州市上城区解放路5号\n");
  const auto line_taken = run_cli("index add --on-error skip --index " + ix + " --input " + (dir / "again.tsv").string());
  EXPECT_NE(line_taken.err.find("again.tsv:4: this line has no id, and its line number \"4\" is already an id in the index"),
            std::string::npos)
      << line_taken.err;
  const std::string huge((1 << 20) + 1, 'x');  // over the line limit
  const auto found = run_cli("search --on-error skip --k 1 --index " + ix, "文三路478号华星大厦\n\n" + huge + "\n北京朝阳建国路88号\n");
  ASSERT_EQ(found.exit_code, 0) << found.err;
  const auto out = lines(found.out);
  ASSERT_EQ(out.size(), 4u) << found.out;
  EXPECT_NE(out[0].find("\"id\":\"hz1\""), std::string::npos) << out[0];
  EXPECT_NE(out[1].find("\"line\":2"), std::string::npos) << out[1];
  EXPECT_NE(out[2].find("\"error\""), std::string::npos);
  EXPECT_NE(out[3].find("\"id\":\"bj1\""), std::string::npos) << out[3];
  const auto none = run_cli("search --index " + ix, "");
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(none.out.empty());
  write_file(dir / "ix" / "records.2.bin", "GAXREC");  // the second add saved a generation of its own
  const auto broken = run_cli("search --index " + ix, "杭州\n");
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("records.2.bin"), std::string::npos) << broken.err;
}

}  // namespace
}  // namespace geoalign
