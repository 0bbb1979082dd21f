#include "dedup/blocking.h"

#include <algorithm>
#include <atomic>

#include "backend/cpu/parallel.h"
#include "index/exact_neighbours.h"
#include "index/vector_index.h"

namespace geoalign::dedup {

namespace {

// Each address's vector neighbours: exact while that is cheap, else through an HNSW graph.
std::vector<std::vector<index::Hit>> vector_neighbours(std::span<const float> vectors, std::size_t n, std::size_t k,
                                                       const index::BuildProgress& progress) {
  const std::size_t dim = n ? vectors.size() / n : 0;
  if (n <= kExactNeighboursUpTo) {
    progress.begin("neighbours", n);
    return index::exact_neighbours(vectors, dim, k, progress.done);
  }
  progress.begin("graph", n);
  index::VectorIndex graph(dim, {});
  graph.add(vectors, progress.done);
  progress.begin("neighbours", n);
  std::vector<std::vector<index::Hit>> out(n);
  std::atomic<std::size_t> done{0};
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 64, [&](std::int64_t i) {
    const auto u = static_cast<std::size_t>(i);
    out[u] = graph.search(vectors.subspan(u * dim, dim), k + 1, std::max<std::size_t>(k + 1, 32));
    std::erase_if(out[u], [u](const index::Hit& h) { return h.record == u; });
    if (progress.done && ++done % 1024 == 0) progress.done(done);
  });
  return out;
}

}  // namespace

std::vector<AddressPair> block(std::span<const std::string> texts, std::span<const StatedRegion> regions,
                               std::span<const float> vectors, std::size_t neighbours,
                               const index::BuildProgress& progress) {
  const std::size_t n = texts.size();
  if (regions.size() != n || (n && vectors.size() % n != 0)) throw Error("block: texts, regions and vectors differ in length");
  if (neighbours == 0 || neighbours > kMaxNeighbours) {
    throw Error("neighbours must be in 1.." + std::to_string(kMaxNeighbours) + ", not " + std::to_string(neighbours));
  }
  const std::vector<std::vector<index::Hit>> near = vector_neighbours(vectors, n, neighbours, progress);

  index::StringColumn column;
  for (const auto& t : texts) column.push_back(t);
  const index::LexicalIndex lexical = index::LexicalIndex::build(column);

  progress.begin("block", n);
  std::vector<std::vector<AddressPair>> found(n);
  std::atomic<std::size_t> done{0};
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 64, [&](std::int64_t i) {
    const auto u = static_cast<std::uint32_t>(i);
    auto keep = [&](const std::vector<index::Hit>& hits) {
      for (const auto& h : hits) {
        if (h.record == u || region_conflict(regions[u], regions[h.record])) continue;
        found[u].emplace_back(std::min(u, h.record), std::max(u, h.record));
      }
    };
    keep(lexical.search(texts[u], neighbours + 1, {}, kBlockingPostings));  // the address itself comes back too
    keep(near[u]);
    if (progress.done && ++done % 1024 == 0) progress.done(done);
  });
  std::vector<AddressPair> candidates;
  for (auto& f : found) {
    candidates.insert(candidates.end(), f.begin(), f.end());
    std::vector<AddressPair>().swap(f);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  return candidates;
}

}  // namespace geoalign::dedup
