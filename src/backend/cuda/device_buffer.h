#pragma once

#include <cstddef>
#include <memory>

namespace geoalign::cuda {

// Untyped GPU memory (bf16 weights, a layer's converted input, cuBLASLt's workspace),
// where a Tensor's float and int32 types do not fit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { reserve(bytes); }

  // At least `bytes`; growing drops the contents.
  void reserve(std::size_t bytes);
  std::byte* data() const { return storage_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> storage_;
  std::size_t bytes_ = 0;
};

}  // namespace geoalign::cuda
