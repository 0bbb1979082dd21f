#pragma once

#include <cstddef>
#include <span>

namespace geoalign::match {

// This thread's row buffers for the dynamic programs of the pair measures (common
// subsequences and runs). A deduplication runs them tens of millions of times, and an
// allocation each would cost about as much as the program. The span stays valid until
// the same function is called again on this thread: one program at a time uses each.
std::span<std::size_t> scratch_sizes(std::size_t n);
std::span<double> scratch_doubles(std::size_t n);

}  // namespace geoalign::match
