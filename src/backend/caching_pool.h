#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace geoalign {

// Keeps freed blocks for reuse instead of returning them to the device's allocator. On a
// GPU that allocator (cudaMalloc/cudaFree) is slow and cudaFree waits for the whole device,
// so a batch that frees and allocates a few buffers would stall the queue every time.
// Sizes are rounded up to a class (at most a quarter more), so that buffers of nearby sizes
// share blocks. When the device is out of memory, the cached blocks are given back and the
// allocation is tried once more.
//
// Reuse is safe only where all work on the memory runs in one order (one stream): a block
// freed while a queued kernel still reads it is handed out again only to work queued after.
class CachingPool {
 public:
  using Allocate = std::byte* (*)(std::size_t bytes);  // nullptr when out of memory
  using Release = void (*)(std::byte* p) noexcept;

  CachingPool(Allocate from_device, Release to_device) : allocate_(from_device), release_(to_device) {}
  CachingPool(const CachingPool&) = delete;
  CachingPool& operator=(const CachingPool&) = delete;
  ~CachingPool() { trim(); }

  // nullptr when the device has no room even after the cache is given back.
  std::byte* allocate(std::size_t bytes);
  // p must come from allocate(); nullptr is ignored.
  void release(std::byte* p) noexcept;
  // Gives every cached block back to the device.
  void trim();

  std::size_t cached_bytes() const;
  std::size_t live_bytes() const;

  // The size a request for `bytes` is served with: 512 bytes at least, else rounded up to a
  // quarter of the power of two below it.
  static std::size_t size_class(std::size_t bytes);

 private:
  void trim_locked();

  Allocate allocate_;
  Release release_;
  mutable std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<std::byte*>> cached_;  // by size class
  std::unordered_map<std::byte*, std::size_t> live_;                 // what each block's class is
  std::size_t cached_bytes_ = 0, live_bytes_ = 0;
};

}  // namespace geoalign
