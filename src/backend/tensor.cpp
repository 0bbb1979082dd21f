#include "backend/tensor.h"

#include <cstdlib>
#include <cstring>

namespace geoalign {

namespace {

constexpr std::size_t kAlignment = 64;

std::int64_t checked_numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw Error("negative tensor dimension in shape " + shape_to_string(shape));
    if (d != 0 && n > INT64_MAX / d) throw Error("tensor shape " + shape_to_string(shape) + " is too large");
    n *= d;
  }
  return n;
}

}  // namespace

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void Tensor::Free::operator()(std::byte* p) const { std::free(p); }

Tensor::Tensor(Shape shape, DType dtype, Device device) : dtype_(dtype), device_(device) {
  if (device != Device::CPU) throw Error("tensors on device " + std::string(device_name(device)) + " are not supported in this build");
  resize(std::move(shape));
}

Tensor Tensor::from_vector(Shape shape, const std::vector<float>& values) {
  Tensor t(std::move(shape), DType::F32);
  if (static_cast<std::size_t>(t.numel()) != values.size()) throw Error("from_vector: value count does not match shape");
  std::memcpy(t.data<float>(), values.data(), values.size() * sizeof(float));
  return t;
}

Tensor Tensor::from_vector(Shape shape, const std::vector<std::int32_t>& values) {
  Tensor t(std::move(shape), DType::I32);
  if (static_cast<std::size_t>(t.numel()) != values.size()) throw Error("from_vector: value count does not match shape");
  std::memcpy(t.data<std::int32_t>(), values.data(), values.size() * sizeof(std::int32_t));
  return t;
}

std::size_t Tensor::element_size() const { return 4; }

void Tensor::resize(Shape shape) {
  const std::int64_t n = checked_numel(shape);
  const std::size_t bytes = static_cast<std::size_t>(n) * element_size();
  if (bytes > capacity_bytes_) {
    const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded));
    if (p == nullptr) throw Error("out of memory allocating a tensor of shape " + shape_to_string(shape));
    storage_.reset(p);
    capacity_bytes_ = rounded;
  }
  shape_ = std::move(shape);
  numel_ = n;
}

void Tensor::check_dtype(DType expected) const {
  if (dtype_ != expected) throw Error("tensor dtype mismatch");
}

std::vector<float> Tensor::to_vector() const {
  const float* p = data<float>();
  return std::vector<float>(p, p + numel_);
}

}  // namespace geoalign
