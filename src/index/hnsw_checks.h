#pragma once

#include <cstddef>
#include <filesystem>

#include "index/hnswlib_include.h"

namespace geoalign::index {

// hnswlib reads a graph file as it comes (sizes from its header, link lists as written)
// and a search follows every link without a check: a file whose checksum was recomputed
// over a bad entry point or one flipped link sent search out of bounds. These checks
// stand between the file and hnswlib; each throws Error naming the file.

// Before hnswlib reads it: the header describes a graph of `records` vectors of `dim`
// floats as geoalign builds them (M links per node, 2M on the bottom layer), and the
// file holds exactly the link lists the header implies, so nothing hnswlib allocates or
// reads is larger than the file.
void check_graph_file(const std::filesystem::path& file, std::size_t dim, std::size_t records);

// After: each node's label is a record (every record once), every link points at a node
// that has the layer it is followed on, the entry point stands on the top layer, no node
// is marked deleted, and every vector is finite.
void check_graph(const hnswlib::HierarchicalNSW<float>& graph, std::size_t dim, const std::filesystem::path& file);

}  // namespace geoalign::index
