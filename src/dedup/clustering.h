#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

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
// blocking never proposed are scored on demand through `score_missing`.
class AverageLinkage {
 public:
  using ScoreMissing = std::function<std::vector<float>(std::span<const std::pair<std::uint32_t, std::uint32_t>>)>;

  AverageLinkage(std::size_t items, float threshold, ScoreMissing score_missing)
      : threshold_(threshold), score_missing_(std::move(score_missing)), parent_(items), members_(items) {
    for (std::uint32_t i = 0; i < items; ++i) {
      parent_[i] = i;
      members_[i] = {i};
    }
  }

  // `pairs` must hold every scored pair (the mean looks them up); returns each item's
  // cluster: the smallest item number in it.
  std::vector<std::uint32_t> run(std::vector<ScoredPair> pairs);

  // Pairs scored on demand so far (they belong to the evidence too).
  const std::vector<ScoredPair>& scored_on_demand() const { return on_demand_; }

 private:
  std::uint32_t find(std::uint32_t x);
  float mean_link(std::uint32_t ca, std::uint32_t cb);

  float threshold_;
  ScoreMissing score_missing_;
  std::vector<std::uint32_t> parent_;
  std::vector<std::vector<std::uint32_t>> members_;
  static std::uint64_t key(std::uint32_t x, std::uint32_t y) {
    return (static_cast<std::uint64_t>(std::min(x, y)) << 32) | std::max(x, y);
  }
  geo::FlatU64Map<float> known_;
  std::vector<ScoredPair> on_demand_;
};

}  // namespace geoalign::dedup
