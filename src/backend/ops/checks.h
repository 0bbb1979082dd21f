#pragma once

#include <string>

#include "backend/tensor.h"

namespace geoalign::ops {

// Shape checks shared by the ops' device-independent entry points.
inline void require_rank(const Tensor& t, std::size_t rank, const char* op, const char* name) {
  if (t.rank() != rank) {
    throw Error(std::string(op) + ": " + name + " must have rank " + std::to_string(rank) + ", got " +
                shape_to_string(t.shape()));
  }
}

inline void require_dim(const Tensor& t, std::size_t axis, std::int64_t size, const char* op, const char* name) {
  if (t.dim(axis) != size) {
    throw Error(std::string(op) + ": " + name + " has shape " + shape_to_string(t.shape()) + ", expected dimension " +
                std::to_string(axis) + " to be " + std::to_string(size));
  }
}

inline void require_device_of(const Tensor& t, Device device, const char* op) {
  if (t.device() != device) {
    throw Error(std::string(op) + ": an input is on " + device_name(t.device()) + ", the others on " +
                device_name(device));
  }
}

template <typename Seqlens>
void require_cu_seqlens(const Seqlens& cu_seqlens, std::int64_t tokens, const char* op) {
  if (cu_seqlens.empty() || cu_seqlens.front() != 0 || cu_seqlens.back() != tokens) {
    throw Error(std::string(op) + ": cu_seqlens must run from 0 to the token count " + std::to_string(tokens));
  }
  for (std::size_t i = 1; i < cu_seqlens.size(); ++i) {
    if (cu_seqlens[i] < cu_seqlens[i - 1]) throw Error(std::string(op) + ": cu_seqlens must not decrease");
  }
}

}  // namespace geoalign::ops
