#include <cstdlib>
#include <cstring>

#include "backend/memory.h"

namespace geoalign {

namespace {
// A cache line, and the widest vector load (AVX-512) never splits one.
constexpr std::size_t kAlignment = 64;
}  // namespace

template <>
void require_device<Device::CPU>() {}

template <>
void synchronize<Device::CPU>() {}

template <>
std::byte* allocate_bytes<Device::CPU>(std::size_t bytes) {
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  return static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded));
}

template <>
void free_bytes<Device::CPU>(std::byte* p) noexcept {
  std::free(p);
}

template <>
void copy_bytes<Device::CPU>(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}

}  // namespace geoalign
