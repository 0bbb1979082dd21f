#include "dedup/clustering.h"

#include <algorithm>
#include <limits>

namespace geoalign::dedup {

AverageLinkage::AverageLinkage(std::size_t items, float threshold, ScoreMissing score_missing,
                               std::span<const StatedRegion> regions)
    : threshold_(threshold),
      score_missing_(std::move(score_missing)),
      parent_(items),
      members_(items),
      region_(regions.begin(), regions.end()),
      neighbours_(items),
      live_neighbours_(items, 0) {
  for (std::uint32_t i = 0; i < items; ++i) {
    parent_[i] = i;
    members_[i] = {i};
  }
  region_.resize(items);
}

std::uint32_t AverageLinkage::find(std::uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];
    x = parent_[x];
  }
  return x;
}

bool AverageLinkage::known(std::uint32_t x, std::uint32_t y) const {
  const std::uint64_t k = key(x, y);
  return std::binary_search(given_.begin(), given_.end(), k) || on_demand_.find(k) != nullptr;
}

void AverageLinkage::add_link(std::uint32_t ca, std::uint32_t cb, LinkSum link) {
  const auto [sum, added] = links_.emplace(key(ca, cb), link);
  if (!added) {
    sum->sum += link.sum;
    sum->count += link.count;
    return;
  }
  for (const std::uint32_t c : {ca, cb}) {
    const std::uint32_t other = c == ca ? cb : ca;
    neighbours_[c].push_back(other);
    ++live_neighbours_[c];
  }
}

void AverageLinkage::observe_more(std::uint32_t ca, std::uint32_t cb, std::size_t wanted) {
  const auto& a = members_[ca];
  const auto& b = members_[cb];
  const std::size_t cross = a.size() * b.size();
  std::vector<AddressPair> missing;
  auto consider = [&](std::uint32_t x, std::uint32_t y) {
    if (known(x, y)) return;
    const AddressPair p{std::min(x, y), std::max(x, y)};
    if (std::find(missing.begin(), missing.end(), p) == missing.end()) missing.push_back(p);
  };
  if (cross <= 4 * kObservedLinks) {
    // Few cross pairs: look at each.
    for (std::size_t i = 0; i < cross && missing.size() < wanted; ++i) consider(a[i / b.size()], b[i % b.size()]);
  } else {
    // Many: cross pairs spread over both clusters (a step through the |a| x |b| grid by a
    // large odd stride), tried a bounded number of times.
    constexpr std::uint64_t kStride = 0x9E3779B97F4A7C15ULL;
    for (std::uint64_t t = 1; t <= 8 * wanted && missing.size() < wanted; ++t) {
      const std::uint64_t cell = (t * kStride) % cross;
      consider(a[cell / b.size()], b[cell % b.size()]);
    }
  }
  if (missing.empty()) return;
  const std::vector<float> links = score_missing_(missing);
  LinkSum observed;
  for (std::size_t k = 0; k < missing.size(); ++k) {
    on_demand_.emplace(key(missing[k].first, missing[k].second), links[k]);
    observed.sum += links[k];
    ++observed.count;
  }
  add_link(ca, cb, observed);
}

float AverageLinkage::mean_link(std::uint32_t ca, std::uint32_t cb) {
  const std::size_t cross = members_[ca].size() * members_[cb].size();
  const std::size_t wanted = std::min<std::size_t>(cross, kObservedLinks);
  const LinkSum* known_links = links_.find(key(ca, cb));
  const std::size_t count = known_links ? known_links->count : 0;
  if (count < wanted) observe_more(ca, cb, wanted - count);
  const LinkSum* link = links_.find(key(ca, cb));
  return link && link->count ? link->sum / static_cast<float>(link->count) : 0.0f;
}

void AverageLinkage::compact_neighbours(std::uint32_t c) {
  auto& list = neighbours_[c];
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  std::erase_if(list, [&](std::uint32_t other) { return links_.find(key(c, other)) == nullptr; });
}

void AverageLinkage::merge(std::uint32_t ca, std::uint32_t cb) {
  // The cluster with fewer neighbours folds into the other: each link moves O(log) times.
  auto [keep, gone] = neighbours_[ca].size() >= neighbours_[cb].size() ? std::pair{ca, cb} : std::pair{cb, ca};
  parent_[gone] = keep;
  region_[keep] = combined(region_[keep], region_[gone]);
  // The larger cluster's members come first, and of two the same size those of the one
  // holding the smaller item: an order fixed by the two clusters alone, so that a
  // component clustered on its own (geoalign.dask's sharded dedup) picks the same cross
  // pairs to score as the whole file does. Which root survives depends on links outside.
  const auto& k = members_[keep];
  const auto& g = members_[gone];
  if (k.size() < g.size() || (k.size() == g.size() && *std::min_element(g.begin(), g.end()) <
                                                          *std::min_element(k.begin(), k.end()))) {
    members_[keep].swap(members_[gone]);
  }
  members_[keep].insert(members_[keep].end(), members_[gone].begin(), members_[gone].end());
  std::vector<std::uint32_t>().swap(members_[gone]);
  std::vector<std::uint32_t> gone_neighbours;
  gone_neighbours.swap(neighbours_[gone]);
  live_neighbours_[gone] = 0;
  for (const std::uint32_t c : gone_neighbours) {
    const std::uint64_t k = key(gone, c);
    const LinkSum* link = links_.find(k);
    if (link == nullptr) continue;  // merged away since, or listed twice
    const LinkSum moved = *link;
    links_.erase(k);
    --live_neighbours_[c];
    if (c == keep) continue;  // now inside one cluster
    add_link(keep, c, moved);
    if (neighbours_[c].size() > 2 * live_neighbours_[c] + 8) compact_neighbours(c);
  }
  if (neighbours_[keep].size() > 2 * live_neighbours_[keep] + 8) compact_neighbours(keep);
}

std::vector<std::uint32_t> AverageLinkage::run(std::vector<ScoredPair> pairs) {
  links_ = geo::FlatU64Map<LinkSum>(pairs.size());
  given_.clear();
  given_.reserve(pairs.size());
  for (const ScoredPair& p : pairs) {
    given_.push_back(key(p.a, p.b));
    add_link(p.a, p.b, {p.link, 1});
  }
  std::sort(given_.begin(), given_.end());
  std::sort(pairs.begin(), pairs.end(), [](const ScoredPair& x, const ScoredPair& y) {
    return x.link != y.link ? x.link > y.link : (x.a != y.a ? x.a < y.a : x.b < y.b);
  });
  for (const ScoredPair& p : pairs) {
    if (p.link < threshold_) break;
    const std::uint32_t ca = find(p.a), cb = find(p.b);
    if (ca == cb || region_conflict(region_[ca], region_[cb]) || mean_link(ca, cb) < threshold_) continue;
    merge(ca, cb);
  }
  // A cluster is named by its smallest item, whichever root it ended with.
  std::vector<std::uint32_t> smallest(parent_.size(), std::numeric_limits<std::uint32_t>::max());
  for (std::uint32_t i = 0; i < parent_.size(); ++i) {
    auto& s = smallest[find(i)];
    s = std::min(s, i);
  }
  std::vector<std::uint32_t> cluster(parent_.size());
  for (std::uint32_t i = 0; i < cluster.size(); ++i) cluster[i] = smallest[find(i)];
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
