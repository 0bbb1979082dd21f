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

// An attribute with `activation` as its only post-op.
dnnl::primitive_attr activation_attr(ops::Activation activation);

// A private fp32 copy of a (bias) tensor, and an fp32 [1, n] oneDNN view of it.
Tensor copy_of(const Tensor& t);
dnnl::memory bias_memory(Tensor& bias);

// Copies a plain weight matrix into the layout `wanted` (often a blocked layout that
// oneDNN chose for its kernel), once, at load time.
dnnl::memory repack(dnnl::memory plain, const dnnl::memory::desc& wanted);

}  // namespace geoalign::cpu
