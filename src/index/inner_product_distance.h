#pragma once

#include <cstddef>

namespace geoalign::index {

// hnswlib's distance for unit vectors, 1 - dot product, in hnswlib's calling convention
// (two vectors and a pointer to their std::size_t dimension), with the instruction set
// chosen at run time (AVX-512, AVX2 or baseline, as geoalign's kernels are). hnswlib's
// own spaces pick theirs at compile time, which for a portable build means SSE: the graph
// build then spends most of its time in distances.
using DistanceFunction = float (*)(const void* a, const void* b, const void* dim);
DistanceFunction inner_product_distance();

}  // namespace geoalign::index
