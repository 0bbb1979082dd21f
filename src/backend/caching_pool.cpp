#include "backend/caching_pool.h"

#include <bit>

namespace geoalign {

std::size_t CachingPool::size_class(std::size_t bytes) {
  constexpr std::size_t kSmallest = 512;
  if (bytes <= kSmallest) return kSmallest;
  const std::size_t step = std::bit_floor(bytes) / 4;
  return (bytes + step - 1) / step * step;
}

std::byte* CachingPool::allocate(std::size_t bytes) {
  const std::size_t size = size_class(bytes);
  std::lock_guard lock(mutex_);
  std::byte* p = nullptr;
  if (auto it = cached_.find(size); it != cached_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    cached_bytes_ -= size;
  } else {
    p = allocate_(size);
    if (p == nullptr && cached_bytes_ > 0) {
      trim_locked();
      p = allocate_(size);
    }
    if (p == nullptr) return nullptr;
  }
  live_.emplace(p, size);
  live_bytes_ += size;
  return p;
}

void CachingPool::release(std::byte* p) noexcept {
  if (p == nullptr) return;
  std::lock_guard lock(mutex_);
  const auto it = live_.find(p);
  if (it == live_.end()) return;  // not ours: never hand a foreign pointer out again
  const std::size_t size = it->second;
  live_bytes_ -= size;
  live_.erase(it);
  try {
    cached_[size].push_back(p);
    cached_bytes_ += size;
  } catch (...) {  // no host memory to remember it: give it back instead
    release_(p);
  }
}

void CachingPool::trim() {
  std::lock_guard lock(mutex_);
  trim_locked();
}

void CachingPool::trim_locked() {
  for (auto& [size, blocks] : cached_) {
    for (std::byte* p : blocks) release_(p);
  }
  cached_.clear();
  cached_bytes_ = 0;
}

std::size_t CachingPool::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

std::size_t CachingPool::live_bytes() const {
  std::lock_guard lock(mutex_);
  return live_bytes_;
}

}  // namespace geoalign
