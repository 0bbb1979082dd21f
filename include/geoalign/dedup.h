#pragma once

// Deduplication: rows of addresses grouped into the places they name, as `geoalign dedup`
// does, either in one call (Deduplicator::run) or stage by stage, for a caller that spreads
// the stages over processes (geoalign.dask runs each as tasks and gets run()'s answer):
//
//   normalize each row → number the distinct addresses → embed_and_locate them →
//   block (candidate pairs) → score the candidates → cluster → table (row by row)
//
// Every stage's result is plain data, so it can be shipped between processes; a stage's
// answer does not depend on how its input was split into chunks.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/error.h"
#include "geoalign/matcher.h"

namespace geoalign {

// More candidates per address than this buy no recall and cost memory in proportion.
inline constexpr std::size_t kMaxDedupNeighbours = 1000;
// Up to this many addresses blocking finds vector neighbours exactly; above, through an
// HNSW graph (one process) or coarse partitions (geoalign.dask with a task bound).
inline constexpr std::size_t kDedupExactNeighboursUpTo = 50000;

struct DedupModelOptions {
  Precision precision = Precision::Auto;
  // "rerank": the folder's rerank head (trees over the two parses, tens of thousands of
  // pairs a second) where it has one, else the cross-encoder and match head; "match": the
  // cross-encoder and match head, as `geoalign score` does.
  std::string head = "rerank";
  // A parser for a folder without one of its own (an MGeo or Hugging Face folder); empty:
  // the bundled parser.
  std::filesystem::path parser;
  // The user's names for places beside the folder's (MatcherOptions::aliases).
  std::filesystem::path aliases{};
};

struct DedupOptions {
  // The mean link two clusters need to merge; none: the one the folder's head was trained
  // to (rerank_head.json), else 0.5.
  std::optional<float> threshold;
  // "exact": only exact_match joins two addresses; "partial": exact_match or partial_match
  // (one place named at two granularities).
  std::string merge = "partial";
  // Candidates per address from each of the lexical and the vector search, 1..kMaxDedupNeighbours.
  std::size_t neighbours = 20;
};

// Rows reduced to distinct addresses, numbered in the order of their first row.
struct DistinctAddresses {
  std::vector<std::string> texts;             // normalized
  std::vector<std::uint32_t> address_of_row;  // per row
};

// The province and city an address names itself, as administrative codes (0: none named).
// Addresses that name different ones are never one place.
struct StatedRegion {
  std::uint64_t province = 0, city = 0;
};

// Per address: a unit vector (dim floats each, in address order) and its stated region.
struct LocatedAddresses {
  std::size_t dim = 0;
  std::vector<float> vectors;
  std::vector<StatedRegion> regions;
};

// Two address numbers, first < second.
struct CandidatePair {
  std::uint32_t a = 0, b = 0;
};

// A candidate pair as the head scored it, the mean of its two orders (which address of a
// file comes first must not decide whether two merge).
struct ScoredPair {
  std::uint32_t a = 0, b = 0;
  std::uint32_t label_id = 0;
  float p_not_match = 0, p_partial_match = 0, p_exact_match = 0;
};

// How many addresses of a whole file hold each character gram (grams sorted): what a
// lexical search over one shard of the file needs to score as a search of the whole.
struct GramCountsView {
  std::size_t records = 0;
  std::span<const std::uint64_t> grams;
  std::span<const std::uint32_t> df;
};
struct GramCounts {
  std::size_t records = 0;
  std::vector<std::uint64_t> grams;
  std::vector<std::uint32_t> df;
  GramCountsView view() const { return {records, grams, df}; }
};

// Search hits: query and hit positions in the lists searched, best first per query.
struct NeighbourHits {
  std::vector<std::uint32_t> query, hit;
  std::vector<float> score;
};

// Per address: its cluster (the cluster's smallest address number), the address it links
// to most strongly (-1: none) and that link.
struct AddressClusters {
  std::vector<std::uint32_t> cluster;
  std::vector<std::int64_t> best_match;
  std::vector<float> best_link;
  std::size_t scored_on_demand = 0;  // cross pairs clustering scored beyond the candidates
};

// A dedup seen row by row, as `geoalign dedup` writes it; rows are numbers here, and each
// caller names them with its own ids.
struct DedupTable {
  std::vector<std::size_t> cluster_row;   // per row: the first row of its cluster
  std::vector<std::size_t> cluster_size;  // per row: rows in its cluster
  // Per row: the row it matches best, -1 if none (for a row repeating an earlier row's
  // address, that row, score 1), and the score.
  std::vector<std::int64_t> best_match_row;
  std::vector<float> best_match_score;
  std::size_t clusters = 0;
};

// A model folder as dedup uses it. Thread-safe; every stage throws Error with the place
// (row, pair or address number) of what it cannot use.
class Deduplicator {
 public:
  static Deduplicator load(const std::filesystem::path& model_dir, const DedupModelOptions& options = {});
  Deduplicator(Deduplicator&&) noexcept;
  Deduplicator& operator=(Deduplicator&&) noexcept;
  ~Deduplicator();

  // The whole job: each row's place in the clusters. Throws Error naming the first row
  // (1-based) that is not valid UTF-8 or is blank after normalization.
  DedupTable run(std::span<const std::string> rows, const DedupOptions& options = {}) const;

  // The stages, in order.
  // The text dedup compares (empty when nothing is left of the row); throws Error for
  // invalid UTF-8.
  std::string normalize(std::string_view row) const;
  // Rows already normalized, numbered: equal texts are one address. Throws Error naming
  // the first blank row (1-based).
  static DistinctAddresses number_addresses(std::vector<std::string> normalized);
  // Each address parsed and embedded.
  LocatedAddresses embed_and_locate(std::span<const std::string> texts) const;
  // Each address with its `neighbours` nearest by characters and by embedding, minus
  // pairs of conflicting regions; sorted, without repeats.
  static std::vector<CandidatePair> block(std::span<const std::string> texts, const LocatedAddresses& located,
                                          std::size_t neighbours);
  // block() split over tasks: merged per address over every shard of the file (best
  // score first, then the lower address), the hits below are the whole file's, and
  // block() keeps the first neighbours + 1 lexical and neighbours vector hits of each
  // address, less the address itself and pairs whose regions conflict.
  static GramCounts gram_counts(std::span<const std::string> texts);
  // The queries' k best lexical hits in `shard`, scored with the whole file's `counts`
  // (read where they are, not copied).
  static NeighbourHits lexical_hits(std::span<const std::string> shard, std::span<const std::string> queries,
                                    GramCountsView counts, std::size_t k);
  // The queries' k nearest vectors in `shard` (dim floats each); same_rows: the queries
  // are the shard, and an address is not its own neighbour.
  static NeighbourHits vector_hits(std::span<const float> shard, std::span<const float> queries, std::size_t dim,
                                   std::size_t k, bool same_rows);
  // Whether each pair (a[i], b[i]) states different provinces or cities.
  static std::vector<std::uint8_t> region_conflicts(std::span<const StatedRegion> a, std::span<const StatedRegion> b);
  std::vector<ScoredPair> score(std::span<const std::string> texts, std::span<const CandidatePair> pairs) const;
  // Average linkage over the scored candidates (threshold and merge from `options`).
  AddressClusters cluster(std::span<const std::string> texts, std::span<const ScoredPair> scored,
                          std::span<const StatedRegion> regions, const DedupOptions& options = {}) const;
  static DedupTable table(std::span<const std::uint32_t> address_of_row, const AddressClusters& clusters);

  // The threshold cluster() uses for `options`.
  float threshold(const DedupOptions& options = {}) const;
  // The link cluster() reads from a scored pair under a merge rule ("exact", "partial"):
  // the pairs at or above threshold() are the only ones a merge can start from.
  static float link(const ScoredPair& pair, std::string_view merge);
  const std::vector<std::string>& labels() const;

 private:
  struct Impl;
  explicit Deduplicator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace geoalign
