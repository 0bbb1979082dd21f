#pragma once

#include <cstddef>
#include <span>

namespace geoalign::match {

// This thread's buffers for the pair measures: the rows of their dynamic programs (common
// subsequences and runs) and the gram counts of the weighted measures. A deduplication
// runs them tens of millions of times, and an allocation each would cost about as much
// as the program. The span stays valid until
// the same function is called again on this thread: one program at a time uses each.
std::span<std::size_t> scratch_sizes(std::size_t n);
std::span<double> scratch_doubles(std::size_t n);

}  // namespace geoalign::match
