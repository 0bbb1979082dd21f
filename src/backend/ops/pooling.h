#pragma once

#include <cstdint>
#include <span>

#include "backend/tensor.h"

namespace geoalign::ops {

enum class Pooling { Cls, Mean };

// One vector per sequence of a padding-free batch: its first token ([CLS]), or the mean
// of all its tokens ([CLS] and [SEP] included, as a masked mean over a padded batch).
void pool(const Tensor& x, std::span<const std::int32_t> cu_seqlens, Pooling pooling, Tensor& out);

template <Device D>
void pool(const Tensor& x, std::span<const std::int32_t> cu_seqlens, Pooling pooling, Tensor& out);

}  // namespace geoalign::ops
