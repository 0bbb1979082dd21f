#include "backend/tensor.h"

#include <cstring>

#include "backend/memory.h"

namespace geoalign {

namespace {

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

void Tensor::Free::operator()(std::byte* p) const { free_bytes(device, p); }

Tensor::Tensor(Shape shape, DType dtype, Device device) : dtype_(dtype), device_(device), storage_(nullptr, Free{device}) {
  require_device(device);
  resize(std::move(shape));
}

Tensor Tensor::from_vector(Shape shape, const std::vector<float>& values) {
  Tensor t(std::move(shape), DType::F32);
  if (static_cast<std::size_t>(t.numel()) != values.size()) throw Error("from_vector: value count does not match shape");
  if (!values.empty()) std::memcpy(t.data<float>(), values.data(), values.size() * sizeof(float));
  return t;
}

Tensor Tensor::from_vector(Shape shape, const std::vector<std::int32_t>& values) {
  Tensor t(std::move(shape), DType::I32);
  if (static_cast<std::size_t>(t.numel()) != values.size()) throw Error("from_vector: value count does not match shape");
  if (!values.empty()) std::memcpy(t.data<std::int32_t>(), values.data(), values.size() * sizeof(std::int32_t));
  return t;
}

std::size_t Tensor::element_size() const { return 4; }

void Tensor::resize(Shape shape) {
  const std::int64_t n = checked_numel(shape);
  const std::size_t bytes = static_cast<std::size_t>(n) * element_size();
  if (bytes > capacity_bytes_) {
    storage_.reset();  // the old storage goes first, so the peak is not both
    capacity_bytes_ = 0;
    std::byte* p = allocate_bytes(device_, bytes);
    if (p == nullptr) {
      shape_ = {0};  // empty, not a shape without storage
      numel_ = 0;
      throw Error(std::string("out of ") + device_name(device_) + " memory allocating a tensor of shape " +
                  shape_to_string(shape));
    }
    storage_.reset(p);
    capacity_bytes_ = bytes;
  }
  shape_ = std::move(shape);
  numel_ = n;
}

void Tensor::resize(Shape shape, Device device) {
  if (device != device_) {
    require_device(device);
    storage_ = decltype(storage_)(nullptr, Free(device));
    capacity_bytes_ = 0;
    device_ = device;
  }
  resize(std::move(shape));
}

void Tensor::check_dtype(DType expected) const {
  if (dtype_ != expected) throw Error("tensor dtype mismatch");
}

Tensor Tensor::to(Device device) const {
  Tensor out(shape_, dtype_, device);
  copy_bytes(device, out.storage_.get(), device_, storage_.get(), bytes());
  return out;
}

std::vector<float> Tensor::to_vector() const {
  check_dtype(DType::F32);
  std::vector<float> out(static_cast<std::size_t>(numel_));
  copy_bytes(Device::CPU, reinterpret_cast<std::byte*>(out.data()), device_, storage_.get(), bytes());
  return out;
}

}  // namespace geoalign
