#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace geoalign::cpu {

// One CPU engine per process; a stream per calling thread, because a oneDNN stream
// is not meant to be shared between threads that execute at the same time.
dnnl::engine& onednn_engine();
dnnl::stream& onednn_stream();

}  // namespace geoalign::cpu
