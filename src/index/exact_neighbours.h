#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "index/lexical_index.h"

namespace geoalign::index {

// Each row's k nearest other rows by inner product, found exactly: blocked GEMMs over
// every core, then a top-k per row. Up to some tens of thousands of rows this costs less
// than building an HNSW graph, finds every true neighbour, and gives the same answer on
// every run and in every process (the graph's parallel inserts do not), so a dedup split
// over processes finds the same candidates as one run. Ties go to the lower row number.
// `on_done` (may be empty) hears how many rows are done.
std::vector<std::vector<Hit>> exact_neighbours(std::span<const float> rows, std::size_t dim, std::size_t k,
                                               const std::function<void(std::size_t)>& on_done = {});

// Each query row's k nearest base rows, the same way (a dedup split over tasks searches
// one slice of the rows against another and merges: the scores are those of the whole).
// same_rows: the queries are the base rows, and a row is not its own neighbour.
std::vector<std::vector<Hit>> exact_neighbours(std::span<const float> queries, std::span<const float> base,
                                               std::size_t dim, std::size_t k, bool same_rows,
                                               const std::function<void(std::size_t)>& on_done = {});

}  // namespace geoalign::index
