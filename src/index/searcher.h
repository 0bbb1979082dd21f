#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "index/address_index.h"

namespace geoalign::index {

// Queries `geoalign search` searches together by default. A query's embedding moves in
// its last bits with the queries that share its model batch, so a front end that wants
// the CLI's exact results (the Python package) searches in batches of the same size.
inline constexpr std::size_t kSearchBatch = 256;

struct SearchOptions {
  std::size_t k = 10;
  // Fused candidates rescored by the pair scorer (engine::Engine::score); 0: none.
  std::size_t rerank = 50;
  // Candidates each of the lexical and vector searches contributes to the fusion; never
  // fewer than rerank or k.
  std::size_t candidates = 100;
  // An adcode prefix (11 for Beijing, 4403 for Shenzhen) results must lie in; empty: anywhere.
  std::string region;
  // Leave out records in other cities than the one each query names (by its city or a
  // district in it); records whose city is not known are kept.
  bool region_from_query = false;
  // How the pair scorer reads (query, record): the mean of both orders, or as given.
  PairReading reading = PairReading::Symmetric;
};

struct SearchHit {
  std::uint32_t record;
  float score;  // the pair scorer's P(exact_match) when reranked, else the fused retrieval score
  std::optional<MatchResult> match;  // reranked hits only
};

// Lookup of addresses in an index: the lexical and vector searches each propose
// candidates, reciprocal-rank fusion merges them (each list ranks what the other misses:
// a shared rare bigram, or a paraphrase with no characters in common), and the pair
// scorer reranks the best fused ones. Thread-safe.
//
// search() runs every stage for many queries. A caller that embeds queries elsewhere (the
// server, in its model batches) runs the stages itself: prepare each query, embed its
// text with the index's model, then search_one.
class Searcher {
 public:
  Searcher(const AddressIndex& index, const engine::Engine& model);

  // One result list per query, in query order. Throws Error naming the query on bad input.
  std::vector<std::vector<SearchHit>> search(std::span<const std::string> queries, const SearchOptions& options) const;

  // A query as the later stages read it: normalized and parsed. Throws Error on bad input.
  engine::Address prepare(std::string_view query) const;
  // One query's results; `vector` is the embedding of query.text by the index's model.
  std::vector<SearchHit> search_one(const engine::Address& query, std::span<const float> vector, const SearchOptions& options) const;

  // The adcode prefix of a region name (北京市, 南山区): what SearchOptions::region takes.
  // Throws Error when the gazetteer does not know it or it is ambiguous.
  std::string region_code(std::string_view name) const;

  const AddressIndex& index() const { return index_; }
  const engine::Engine& model() const { return model_; }

 private:
  const AddressIndex& index_;
  const engine::Engine& model_;
};

}  // namespace geoalign::index
