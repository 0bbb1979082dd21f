// Deduplicator's blocking split over tasks: gram counts of the whole file, lexical and
// vector hits of one slice of addresses in one shard, and the region rule, so that a
// caller that merges the hits per address gets Deduplicator::block()'s candidates.
#include <algorithm>

#include "backend/threads.h"
#include "dedup/blocking.h"
#include "geoalign/dedup.h"
#include "index/exact_neighbours.h"
#include "index/lexical_index.h"

namespace geoalign {

namespace {

index::StringColumn column_of(std::span<const std::string> texts) {
  index::StringColumn column;
  for (const auto& t : texts) column.push_back(t);
  return column;
}

NeighbourHits flattened(const std::vector<std::vector<index::Hit>>& per_query) {
  NeighbourHits out;
  for (std::size_t q = 0; q < per_query.size(); ++q) {
    for (const index::Hit& h : per_query[q]) {
      out.query.push_back(static_cast<std::uint32_t>(q));
      out.hit.push_back(h.record);
      out.score.push_back(h.score);
    }
  }
  return out;
}

}  // namespace

GramCounts Deduplicator::gram_counts(std::span<const std::string> texts) {
  index::GramFrequencies f = index::gram_frequencies(column_of(texts));
  return {texts.size(), std::move(f.grams), std::move(f.df)};
}

NeighbourHits Deduplicator::lexical_hits(std::span<const std::string> shard, std::span<const std::string> queries,
                                         GramCountsView counts, std::size_t k) {
  adopt_num_threads();
  if (counts.grams.size() != counts.df.size() || !std::is_sorted(counts.grams.begin(), counts.grams.end())) {
    throw Error("dedup lexical hits: the gram counts must be sorted grams with one count each");
  }
  const index::CorpusGrams corpus{counts.records, counts.grams, counts.df};
  const index::LexicalIndex lexical = index::LexicalIndex::build(column_of(shard), corpus);
  std::vector<std::vector<index::Hit>> hits(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) hits[q] = lexical.search(queries[q], k, {}, dedup::kBlockingPostings);
  return flattened(hits);
}

NeighbourHits Deduplicator::vector_hits(std::span<const float> shard, std::span<const float> queries, std::size_t dim,
                                        std::size_t k, bool same_rows) {
  adopt_num_threads();
  return flattened(index::exact_neighbours(queries, shard, dim, k, same_rows));
}

std::vector<std::uint8_t> Deduplicator::region_conflicts(std::span<const StatedRegion> a, std::span<const StatedRegion> b) {
  if (a.size() != b.size()) throw Error("dedup region conflicts: the two lists differ in length");
  std::vector<std::uint8_t> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out[i] = dedup::region_conflict({a[i].province, a[i].city}, {b[i].province, b[i].city});
  }
  return out;
}

}  // namespace geoalign
