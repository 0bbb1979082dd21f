#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "dedup/pair_evidence.h"
#include "dedup/stated_region.h"
#include "geo/flat_u64_map.h"

namespace geoalign::dedup {

struct ScoredPair {
  std::uint32_t a, b;  // a < b
  float link;          // the merge rule's probability that a and b are one place
};

// Average-linkage clustering over a sparse graph of scored pairs. Pairs are taken from
// the strongest link down; two clusters merge only when the mean link over their cross
// pairs reaches the threshold, so a chain a~b~c does not pull a and c together when a
// and c are plainly different (a road, and two numbers on it). The mean is over the cross
// pairs scored so far; where fewer than kObservedLinks of them are (or fewer than all,
// for clusters with fewer cross pairs), more are scored on demand through
// `score_missing`. Two clusters whose addresses state different provinces or cities never
// merge, however they link: blocking drops such pairs, and a third address that names
// neither (三家村) must not join them through the back door.
//
// Cost: each pair of clusters keeps the sum and count of its known links, and a merge
// folds the smaller cluster's sums into the larger's, so a mean costs one lookup and all
// merges together O(pairs log pairs), however large a cluster grows; pairs scored on
// demand are at most kObservedLinks per pair of clusters met. (Averaging by walking every
// cross pair made one large true cluster, a campus or a mall, quadratic.)
class AverageLinkage {
 public:
  using ScoreMissing = std::function<std::vector<float>(std::span<const AddressPair>)>;
  // Cross pairs a mean must rest on: where fewer are known, that many are scored on
  // demand (all of them for clusters with fewer cross pairs, as two small ones).
  static constexpr std::uint32_t kObservedLinks = 16;

  // `regions`: each item's stated region, or empty for no such constraint.
  AverageLinkage(std::size_t items, float threshold, ScoreMissing score_missing,
                 std::span<const StatedRegion> regions = {});

  // `pairs` must hold every scored pair (the means are built from them); returns each
  // item's cluster: the smallest item number in it.
  std::vector<std::uint32_t> run(std::vector<ScoredPair> pairs);

  // How many pairs were scored on demand so far.
  std::size_t scored_on_demand() const { return on_demand_.size(); }

 private:
  // The known links between two clusters.
  struct LinkSum {
    float sum = 0;
    std::uint32_t count = 0;
  };

  std::uint32_t find(std::uint32_t x);
  float mean_link(std::uint32_t ca, std::uint32_t cb);
  // Scores up to `wanted` cross pairs of ca and cb that are not known yet into their sum.
  void observe_more(std::uint32_t ca, std::uint32_t cb, std::size_t wanted);
  bool known(std::uint32_t x, std::uint32_t y) const;
  void add_link(std::uint32_t ca, std::uint32_t cb, LinkSum link);
  void merge(std::uint32_t ca, std::uint32_t cb);
  void compact_neighbours(std::uint32_t c);

  static std::uint64_t key(std::uint32_t x, std::uint32_t y) {
    return (static_cast<std::uint64_t>(std::min(x, y)) << 32) | std::max(x, y);
  }

  float threshold_;
  ScoreMissing score_missing_;
  std::vector<std::uint32_t> parent_;
  std::vector<std::vector<std::uint32_t>> members_;  // per cluster (at its root)
  std::vector<StatedRegion> region_;                 // per cluster: what its members state
  geo::FlatU64Map<LinkSum> links_;                   // per pair of clusters (roots) with a known link
  // Per cluster: the clusters it has a link with, and some it had (roots since merged away,
  // or repeats), dropped when they outnumber the live ones.
  std::vector<std::vector<std::uint32_t>> neighbours_;
  std::vector<std::uint32_t> live_neighbours_;
  std::vector<std::uint64_t> given_;           // the pairs run() was given, as sorted keys
  geo::FlatU64Map<float> on_demand_;           // the pairs scored on demand, by key
};

// Addresses grouped into entities, with each address's strongest link.
struct Entities {
  std::vector<std::uint32_t> cluster;    // the cluster's smallest address number
  std::vector<std::int64_t> best_match;  // the address it links to most strongly, -1 if none
  std::vector<float> best_link;
  std::vector<PairEvidence> on_demand;   // cross pairs clustering scored itself
};

using ScorePairs = std::function<std::vector<PairEvidence>(std::span<const AddressPair>)>;

// Average linkage over the scored candidate pairs of n addresses under `rule`; cross pairs
// it needs beyond them come from `score_missing`; `regions` (one per address, or empty)
// keep clusters that state different places apart. Best matches count both kinds of pair.
Entities cluster_entities(std::size_t n, std::span<const PairEvidence> scored, MergeRule rule, float threshold,
                          const ScorePairs& score_missing, std::span<const StatedRegion> regions);

}  // namespace geoalign::dedup
