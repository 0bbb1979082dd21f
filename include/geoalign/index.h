#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "geoalign/matcher.h"

namespace geoalign {

// One address to add to an index.
struct IndexRecord {
  std::string id;       // empty: the record's number in the index
  std::string address;  // as given; the index stores it and its normalized form
};

struct IndexOptions {
  Precision precision = Precision::Auto;  // of the embeddings
  // Search's pair scorer: "rerank" (the folder's rerank head: parses and trees, fast) or
  // "match" (the cross-encoder and its match head, as Matcher::score).
  std::string head = "rerank";
  // The HNSW graph of a new index: its degree (M) and ef_construction.
  std::size_t links = 16, build_candidates = 200;
  // The user's names for places beside the folder's (MatcherOptions::aliases).
  std::filesystem::path aliases{};
};

struct IndexSearchOptions {
  std::size_t k = 10;           // hits per query
  std::size_t rerank = 50;      // fused candidates rescored by the pair scorer; 0: none
  std::size_t candidates = 100;  // from each of the lexical and vector searches
  std::string region;           // a place name (深圳市南山区) the hits must lie in; empty: anywhere
  bool region_from_query = false;  // leave out records in other cities than the query names
  // How the pair scorer reads (query, record): both orders (the default) or as given.
  PairReading reading = PairReading::Symmetric;
};

struct IndexLinkOptions {
  std::size_t k = 1;  // matches per left address at most, best first
  // Each record matches one left address at most: greedily, highest P(exact_match) first.
  bool one_to_one = false;
  // How each left address is looked up, as for search (rerank at least k).
  IndexSearchOptions search{};
};

struct IndexHit {
  std::string id, text;
  // The pair scorer's P(exact_match) when reranked, else the fused retrieval score.
  float score = 0;
  std::optional<MatchResult> match;  // reranked hits only
};

// An address index (lexical and vector, with stored parses) and the model folder that reads
// it: `geoalign index` and `geoalign search` as a library. Searches may run on many threads
// at once; add() and save() wait for them and hold them back while they run.
class Index {
 public:
  // The file that marks a folder as an index.
  static constexpr const char* kManifestFile = "manifest.json";

  // An empty index for the embeddings of the model in model_dir.
  static Index create(const std::filesystem::path& model_dir, const IndexOptions& options = {});
  // A saved index, read with the model it was built with, or with model_dir (whose
  // weights must be the same). Throws Error naming the file for a damaged index.
  static Index open(const std::filesystem::path& dir, const std::filesystem::path& model_dir = {},
                    const IndexOptions& options = {});
  Index(Index&&) noexcept;
  Index& operator=(Index&&) noexcept;
  ~Index();

  // Throws Error naming the first record that fails (blank once normalized, invalid UTF-8).
  void add(std::span<const IndexRecord> records);
  // Writes the index to dir, replacing an index there whole or not at all.
  void save(const std::filesystem::path& dir);
  // One list of hits per query, best first.
  std::vector<std::vector<IndexHit>> search(std::span<const std::string> queries,
                                            const IndexSearchOptions& options = {}) const;
  // `geoalign link` with this index as the right table: for each left address (in order),
  // its matches, best first: reranked records the pair scorer does not call not_match, at
  // most options.k; none when no reranked record is a match. Throws Error naming the first
  // bad address, and for k of 0 or a rerank below k (options.search.k is not read).
  std::vector<std::vector<IndexHit>> link(std::span<const std::string> left, const IndexLinkOptions& options = {}) const;
  std::size_t size() const;
  // The model folder the index was built with.
  const std::filesystem::path& model_dir() const;

 private:
  struct Impl;
  explicit Index(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace geoalign
