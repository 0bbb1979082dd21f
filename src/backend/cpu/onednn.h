#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "backend/ops/linear.h"

namespace geoalign::cpu {

// One CPU engine per process; a stream per calling thread, because a oneDNN stream
// is not meant to be shared between threads that execute at the same time.
dnnl::engine& onednn_engine();
dnnl::stream& onednn_stream();

// Appends `activation` as an eltwise post-op (nothing for Activation::None).
void append_activation(dnnl::post_ops& post_ops, ops::Activation activation);

// Copies a plain weight matrix into the layout `wanted` (often a blocked layout that
// oneDNN chose for its kernel), once, at load time.
dnnl::memory repack(dnnl::memory plain, const dnnl::memory::desc& wanted);

}  // namespace geoalign::cpu
