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
// the strongest link down; two clusters merge only when the mean link over all their
// cross pairs reaches the threshold, so a chain a~b~c does not pull a and c together
// when a and c are plainly different (a road, and two numbers on it). Cross pairs that
// blocking never proposed are scored on demand through `score_missing`. Two clusters
// whose addresses state different provinces or cities never merge, however they link:
// blocking drops such pairs, and a third address that names neither (三家村) must not
// join them through the back door.
class AverageLinkage {
 public:
  using ScoreMissing = std::function<std::vector<float>(std::span<const AddressPair>)>;

  // `regions`: each item's stated region, or empty for no such constraint.
  AverageLinkage(std::size_t items, float threshold, ScoreMissing score_missing,
                 std::span<const StatedRegion> regions = {})
      : threshold_(threshold),
        score_missing_(std::move(score_missing)),
        parent_(items),
        members_(items),
        region_(regions.begin(), regions.end()) {
    for (std::uint32_t i = 0; i < items; ++i) {
      parent_[i] = i;
      members_[i] = {i};
    }
    region_.resize(items);
  }

  // `pairs` must hold every scored pair (the mean looks them up); returns each item's
  // cluster: the smallest item number in it.
  std::vector<std::uint32_t> run(std::vector<ScoredPair> pairs);

  // How many pairs were scored on demand so far.
  std::size_t scored_on_demand() const { return on_demand_; }

 private:
  std::uint32_t find(std::uint32_t x);
  float mean_link(std::uint32_t ca, std::uint32_t cb);

  float threshold_;
  ScoreMissing score_missing_;
  std::vector<std::uint32_t> parent_;
  std::vector<std::vector<std::uint32_t>> members_;
  std::vector<StatedRegion> region_;  // per cluster (at its root): what its members state
  static std::uint64_t key(std::uint32_t x, std::uint32_t y) {
    return (static_cast<std::uint64_t>(std::min(x, y)) << 32) | std::max(x, y);
  }
  geo::FlatU64Map<float> known_;
  std::size_t on_demand_ = 0;
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
