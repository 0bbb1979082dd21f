#include "dedup/clustering.h"

#include <algorithm>

namespace geoalign::dedup {

namespace {
// Cross pairs a merge may score on demand: beyond this the mean is taken over the pairs
// already scored, which for clusters this large are many.
constexpr std::size_t kMaxOnDemand = 4096;

}  // namespace

std::uint32_t AverageLinkage::find(std::uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];
    x = parent_[x];
  }
  return x;
}

float AverageLinkage::mean_link(std::uint32_t ca, std::uint32_t cb) {
  double sum = 0;
  std::size_t counted = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> missing;
  const bool score_all = members_[ca].size() * members_[cb].size() <= kMaxOnDemand;
  for (std::uint32_t x : members_[ca]) {
    for (std::uint32_t y : members_[cb]) {
      if (const float* link = known_.find(key(x, y))) {
        sum += *link;
        ++counted;
      } else if (score_all) {
        missing.emplace_back(std::min(x, y), std::max(x, y));
      }
    }
  }
  if (!missing.empty()) {
    const std::vector<float> links = score_missing_(missing);
    for (std::size_t k = 0; k < missing.size(); ++k) {
      sum += links[k];
      // Later merges of these clusters look the new pairs up too.
      known_.emplace(key(missing[k].first, missing[k].second), links[k]);
    }
    counted += missing.size();
    on_demand_ += missing.size();
  }
  return counted ? static_cast<float>(sum / static_cast<double>(counted)) : 0.0f;
}

std::vector<std::uint32_t> AverageLinkage::run(std::vector<ScoredPair> pairs) {
  known_ = geo::FlatU64Map<float>(pairs.size());
  for (const ScoredPair& p : pairs) known_.emplace(key(p.a, p.b), p.link);
  std::sort(pairs.begin(), pairs.end(), [](const ScoredPair& x, const ScoredPair& y) {
    return x.link != y.link ? x.link > y.link : (x.a != y.a ? x.a < y.a : x.b < y.b);
  });
  for (const ScoredPair& p : pairs) {
    if (p.link < threshold_) break;
    const std::uint32_t ca = find(p.a), cb = find(p.b);
    if (ca == cb || region_conflict(region_[ca], region_[cb]) || mean_link(ca, cb) < threshold_) continue;
    const auto [keep, gone] = std::minmax(ca, cb);
    parent_[gone] = keep;
    region_[keep] = combined(region_[keep], region_[gone]);
    auto& into = members_[keep];
    into.insert(into.end(), members_[gone].begin(), members_[gone].end());
    std::vector<std::uint32_t>().swap(members_[gone]);
  }
  std::vector<std::uint32_t> cluster(parent_.size());
  for (std::uint32_t i = 0; i < cluster.size(); ++i) cluster[i] = find(i);
  return cluster;
}

Entities cluster_entities(std::size_t n, std::span<const PairEvidence> scored, MergeRule rule, float threshold,
                          const ScorePairs& score_missing, std::span<const StatedRegion> regions) {
  Entities e;
  AverageLinkage clustering(n, threshold, [&](std::span<const AddressPair> pairs) {
    std::vector<PairEvidence> evidence = score_missing(pairs);
    std::vector<float> links;
    links.reserve(evidence.size());
    for (const PairEvidence& p : evidence) links.push_back(link_of(p, rule));
    e.on_demand.insert(e.on_demand.end(), evidence.begin(), evidence.end());
    return links;
  }, regions);
  std::vector<ScoredPair> links;
  links.reserve(scored.size());
  for (const PairEvidence& p : scored) links.push_back({p.a, p.b, link_of(p, rule)});
  e.cluster = clustering.run(std::move(links));

  e.best_match.assign(n, -1);
  e.best_link.assign(n, 0.0f);
  auto consider = [&](const PairEvidence& p) {
    const float l = link_of(p, rule);
    for (const auto& [x, y] : {std::pair{p.a, p.b}, std::pair{p.b, p.a}}) {
      if (e.best_match[x] < 0 || l > e.best_link[x]) {
        e.best_match[x] = y;
        e.best_link[x] = l;
      }
    }
  };
  for (const PairEvidence& p : scored) consider(p);
  for (const PairEvidence& p : e.on_demand) consider(p);
  return e;
}

}  // namespace geoalign::dedup
