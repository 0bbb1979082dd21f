#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "index/lexical_index.h"
#include "index/region_records.h"

namespace geoalign::index {

// Approximate nearest neighbours of unit vectors by inner product: an HNSW graph
// (hnswlib). Chosen over faiss because it is one header, adds records to a built graph
// one at a time (index add), and needs no training pass or BLAS of its own.
class VectorIndex {
 public:
  static constexpr const char* kFileName = "vectors.hnsw";
  struct Options {
    std::size_t links = 16;              // M: graph degree
    std::size_t build_candidates = 200;  // ef_construction
    // A search limited to at most this many records compares them one by one: 65,536 dot
    // products of 256 floats take a few milliseconds, about what a graph walk that found
    // them would cost. Not stored with the graph.
    std::size_t exact_limit = 65536;
  };

  VectorIndex(std::size_t dim, Options options);
  VectorIndex(VectorIndex&&) noexcept;
  VectorIndex& operator=(VectorIndex&&) noexcept;
  ~VectorIndex();

  // Appends rows of `dim` floats as records size() .. size() + n - 1, over every core;
  // `on_added` (may be empty) is told how many have been added so far, from any thread.
  void add(std::span<const float> rows, const std::function<void(std::size_t)>& on_added = {});
  // The k nearest records (score = inner product), best first. `candidates` is HNSW's ef.
  // With `only`, just those records: up to Options::exact_limit, or where the graph would
  // be asked for an eighth of them or more, they are compared one by one, exactly;
  // otherwise the graph is asked for enough neighbours that k of them are likely among them.
  std::vector<Hit> search(std::span<const float> query, std::size_t k, std::size_t candidates,
                          const RecordSet* only = nullptr) const;
  std::size_t size() const;
  std::size_t dim() const { return dim_; }

  void write(const std::filesystem::path& file) const;
  // Throws Error naming the file unless it holds a graph of `records` vectors of `dim`
  // floats that search can walk safely (index/hnsw_checks.h): its checksum alone is not trusted.
  static VectorIndex read(const std::filesystem::path& file, std::size_t dim, std::size_t records);

 private:
  struct Graph;
  std::size_t dim_;
  Options options_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace geoalign::index
