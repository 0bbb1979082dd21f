#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dedup/deduplicator.h"

namespace geoalign::dedup {

// A dedup result seen row by row, as `geoalign dedup` writes it (id, address, cluster_id,
// cluster_size, best_match_id, best_match_score) and the Python package returns it: rows
// are named by row number here, and each front end maps them to its own ids.
struct DedupTable {
  // Per input row, in input order:
  std::vector<std::size_t> cluster_row;  // the first row of its cluster, whose id names the cluster
  std::vector<std::size_t> cluster_size;  // rows in its cluster
  // The row it matches best, -1 if none: for a row repeating an earlier row's address,
  // that row, and for the first of several rows of one address, the second (score 1);
  // otherwise the first row of the address it links to most strongly.
  std::vector<std::int64_t> best_match_row;
  std::vector<float> best_match_score;
  // Per distinct address: its first row.
  std::vector<std::size_t> first_row_of_address;
  std::size_t clusters = 0;
};

DedupTable dedup_table(const DedupResult& result);

}  // namespace geoalign::dedup
