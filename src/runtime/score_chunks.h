#pragma once

#include <cstddef>

namespace geoalign::runtime {

// Pairs `geoalign score` hands to Matcher::score at a time: enough for length sorting to
// fill batches with pairs of similar length, small enough to stream files of any size.
// Which pairs share a batch moves a score in its last bits, so a front end that scores a
// whole list at once (the Python package) cuts it into the same chunks to give the CLI's
// numbers exactly.
inline constexpr std::size_t kScoreBatchesPerChunk = 32;

constexpr std::size_t score_chunk_size(std::size_t batch_size) { return batch_size * kScoreBatchesPerChunk; }

}  // namespace geoalign::runtime
