// Dedup split over tasks (geoalign.dask's sharded dedup): a lexical search of one shard
// with the whole corpus's gram counts, and exact vector neighbours of one slice against
// another, merge into the whole file's hits; a component clustered on its own gets the
// clusters it gets in the whole file.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "dedup/clustering.h"
#include "geoalign/dedup.h"
#include "index/exact_neighbours.h"
#include "index/lexical_index.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using Ranked = std::vector<std::pair<std::uint32_t, float>>;  // (record, score), best first

// Shards' hits of one query merged as the sharded dedup merges them: best score, then the
// lower record, first k.
Ranked merged(std::vector<std::pair<std::uint32_t, float>> hits, std::size_t k) {
  std::sort(hits.begin(), hits.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  hits.resize(std::min(hits.size(), k));
  return hits;
}

std::vector<std::string> addresses(std::size_t n, unsigned seed) {
  const std::vector<std::string> roads = {"文三路", "天目山路", "建国路", "中关村大街", "科苑路", "体育西路", "文二路"};
  const std::vector<std::string> places = {"杭州市西湖区", "北京市朝阳区", "深圳市南山区", "", "广州市天河区"};
  const std::vector<std::string> names = {"碧涛苑", "华星大厦", "阳光小区", "", "第一中学", "人民医院"};
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(places[rng() % places.size()] + roads[rng() % roads.size()] + std::to_string(rng() % 60) + "号" +
                  names[rng() % names.size()] + std::to_string(rng() % 9) + "栋");
  }
  return out;
}

TEST(ShardedBlocking, LexicalHitsOfShardsMergeIntoTheWholeIndexs) {
  const std::vector<std::string> texts = addresses(600, 3);
  index::StringColumn whole_column;
  for (const auto& t : texts) whole_column.push_back(t);
  const index::LexicalIndex whole = index::LexicalIndex::build(whole_column);
  const GramCounts counts = Deduplicator::gram_counts(texts);
  ASSERT_EQ(counts.records, texts.size());
  constexpr std::size_t k = 11;
  constexpr std::size_t kShard = 150;  // four shards
  std::vector<std::vector<std::pair<std::uint32_t, float>>> per_query(texts.size());
  for (std::size_t first = 0; first < texts.size(); first += kShard) {
    const std::span<const std::string> shard(texts.data() + first, kShard);
    const NeighbourHits h = Deduplicator::lexical_hits(shard, texts, counts.view(), k);
    for (std::size_t i = 0; i < h.query.size(); ++i) {
      per_query[h.query[i]].emplace_back(static_cast<std::uint32_t>(first + h.hit[i]), h.score[i]);
    }
  }
  for (std::size_t q = 0; q < texts.size(); ++q) {
    const auto expected = whole.search(texts[q], k, {}, 20000);
    const Ranked got = merged(per_query[q], k);
    ASSERT_EQ(got.size(), expected.size()) << texts[q];
    for (std::size_t r = 0; r < got.size(); ++r) {
      EXPECT_EQ(got[r].first, expected[r].record) << texts[q] << " rank " << r;
      EXPECT_EQ(got[r].second, expected[r].score) << texts[q] << " rank " << r;  // the same arithmetic
    }
  }
  // A shard's index is weighed by its corpus: it is neither grown nor written.
  index::CorpusGrams corpus{counts.records, counts.grams, counts.df};
  index::LexicalIndex shard_index = index::LexicalIndex::build(whole_column, corpus);
  EXPECT_THROW(shard_index.add(whole_column), Error);
  testing::TempDir dir;
  EXPECT_THROW(shard_index.write(dir / "lexical.bin"), Error);
}

TEST(ShardedBlocking, VectorHitsOfSlicesMergeIntoTheWholeFilesNeighbours) {
  constexpr std::size_t n = 257, dim = 16, k = 9, slice = 64;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> rows(n * dim);
  for (auto& x : rows) x = normal(rng);
  std::copy_n(rows.begin() + 3 * dim, dim, rows.begin() + 200 * dim);  // a tie across slices
  const auto whole = index::exact_neighbours(rows, dim, k);
  std::vector<std::vector<std::pair<std::uint32_t, float>>> per_query(n);
  for (std::size_t q = 0; q < n; q += slice) {
    const std::size_t qn = std::min(slice, n - q);
    for (std::size_t s = 0; s < n; s += slice) {
      const std::size_t sn = std::min(slice, n - s);
      const NeighbourHits h = Deduplicator::vector_hits(std::span(rows).subspan(s * dim, sn * dim),
                                                        std::span(rows).subspan(q * dim, qn * dim), dim, k, q == s);
      for (std::size_t i = 0; i < h.query.size(); ++i) {
        per_query[q + h.query[i]].emplace_back(static_cast<std::uint32_t>(s + h.hit[i]), h.score[i]);
      }
    }
  }
  for (std::size_t q = 0; q < n; ++q) {
    const Ranked got = merged(per_query[q], k);
    ASSERT_EQ(got.size(), whole[q].size());
    for (std::size_t r = 0; r < k; ++r) {
      EXPECT_EQ(got[r].first, whole[q][r].record) << "row " << q << " rank " << r;
      EXPECT_FLOAT_EQ(got[r].second, whole[q][r].score) << "row " << q << " rank " << r;
    }
  }
  EXPECT_EQ(merged(per_query[3], k)[0].first, 200u);
}

// Links that depend on the pair alone, so the whole file and a component agree on every
// pair clustering scores on demand.
float link_of(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t h = (std::min(a, b) * 2654435761u) ^ (std::max(a, b) * 40503u);
  return static_cast<float>(h % 1000) / 1000.0f;
}

TEST(ShardedBlocking, AComponentClusteredAloneGetsTheWholeFilesClusters) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    // Groups of addresses linked densely inside, and weak links between groups.
    const std::size_t n = 120;
    std::vector<dedup::ScoredPair> pairs;
    for (std::uint32_t a = 0; a < n; ++a) {
      for (std::uint32_t b = a + 1; b < n; ++b) {
        const bool same_group = a % 6 == b % 6;
        if (rng() % 100 < (same_group ? 25u : 4u)) {
          const float l = same_group ? 0.4f + 0.6f * link_of(a, b) : 0.5f * link_of(a, b);
          pairs.push_back({a, b, l});
        }
      }
    }
    const float threshold = 0.58f;
    auto on_demand = [](std::span<const dedup::AddressPair> p) {
      std::vector<float> out;
      for (const auto& [a, b] : p) out.push_back(0.2f + 0.8f * link_of(a, b));
      return out;
    };
    const auto whole = dedup::AverageLinkage(n, threshold, on_demand).run(pairs);
    // Components of the links at or above the threshold (union-find).
    std::vector<std::uint32_t> root(n);
    for (std::uint32_t i = 0; i < n; ++i) root[i] = i;
    auto find = [&](std::uint32_t x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    for (const auto& p : pairs) {
      if (p.link >= threshold) root[find(p.a)] = find(p.b);
    }
    std::map<std::uint32_t, std::vector<std::uint32_t>> components;
    for (std::uint32_t i = 0; i < n; ++i) components[find(i)].push_back(i);
    for (const auto& [_, members] : components) {
      // Renumbered in order, as the sharded dedup does; links inside the component only.
      std::map<std::uint32_t, std::uint32_t> local;
      for (std::uint32_t i = 0; i < members.size(); ++i) local[members[i]] = i;
      std::vector<dedup::ScoredPair> inside;
      for (const auto& p : pairs) {
        if (local.count(p.a) && local.count(p.b)) inside.push_back({local[p.a], local[p.b], p.link});
      }
      const auto alone = dedup::AverageLinkage(members.size(), threshold, [&](std::span<const dedup::AddressPair> p) {
        std::vector<dedup::AddressPair> global;
        for (const auto& [a, b] : p) global.emplace_back(members[a], members[b]);
        return on_demand(global);
      }).run(inside);
      for (std::uint32_t i = 0; i < members.size(); ++i) {
        ASSERT_EQ(members[alone[i]], whole[members[i]]) << "trial " << trial << ", address " << members[i];
      }
    }
  }
}

}  // namespace
}  // namespace geoalign
