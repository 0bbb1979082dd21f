#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/device.h"

namespace geoalign {

using Shape = std::vector<std::int64_t>;

std::string shape_to_string(const Shape& shape);

// A dense row-major tensor that owns its storage on one device (64-byte aligned on the
// CPU). resize() keeps the allocation when it is large enough, so activations reused
// across batches stop allocating once the largest batch shape has been seen.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Shape shape, DType dtype = DType::F32, Device device = Device::CPU);

  static Tensor from_vector(Shape shape, const std::vector<float>& values);
  static Tensor from_vector(Shape shape, const std::vector<std::int32_t>& values);

  void resize(Shape shape);
  // The same, on `device`: an op's output follows its input there (a tensor on another
  // device gives up its storage).
  void resize(Shape shape, Device device);

  const Shape& shape() const { return shape_; }
  std::int64_t dim(std::size_t i) const { return shape_.at(i); }
  std::size_t rank() const { return shape_.size(); }
  std::int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool empty() const { return numel_ == 0; }

  // The storage, in the tensor's device's memory: only that device's ops may read it.
  // Code above the ops layer reads results with to_vector() or to(Device::CPU).
  template <typename T>
  T* data() {
    check_dtype(dtype_of<T>());
    return reinterpret_cast<T*>(storage_.get());
  }
  template <typename T>
  const T* data() const {
    check_dtype(dtype_of<T>());
    return reinterpret_cast<const T*>(storage_.get());
  }

  // A copy on another device (or the same one).
  Tensor to(Device device) const;
  // The values, copied to the host.
  std::vector<float> to_vector() const;

 private:
  template <typename T>
  static constexpr DType dtype_of() {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>, "tensors hold float or int32");
    return std::is_same_v<T, float> ? DType::F32 : DType::I32;
  }
  struct Free {
    // Constructors, not a member initializer or a default argument: unique_ptr must see
    // Free as default constructible while Tensor is still incomplete.
    Free() noexcept : device(Device::CPU) {}
    explicit Free(Device d) noexcept : device(d) {}
    void operator()(std::byte* p) const;
    Device device;
  };
  std::size_t element_size() const;
  std::size_t bytes() const { return static_cast<std::size_t>(numel_) * element_size(); }
  void check_dtype(DType expected) const;

  Shape shape_;
  std::int64_t numel_ = 0;
  DType dtype_ = DType::F32;
  Device device_ = Device::CPU;
  std::unique_ptr<std::byte[], Free> storage_;
  std::size_t capacity_bytes_ = 0;
};

}  // namespace geoalign
