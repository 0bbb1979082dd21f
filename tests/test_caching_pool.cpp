// The pool that keeps the GPU's freed blocks, exercised over host memory: what it hands
// out, reuses and gives back does not depend on which device's allocator is beneath it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "backend/caching_pool.h"

namespace geoalign {
namespace {

// A device allocator with a fixed capacity, counting what it hands out.
struct FakeDevice {
  static inline std::size_t capacity = 0, used = 0, allocations = 0, releases = 0;
  static inline std::set<std::byte*> blocks;
  static inline std::unordered_map<std::byte*, std::size_t> sizes;
  static std::byte* allocate(std::size_t bytes) {
    if (used + bytes > capacity) return nullptr;
    auto* p = static_cast<std::byte*>(std::malloc(bytes));
    used += bytes, ++allocations;
    blocks.insert(p), sizes[p] = bytes;
    return p;
  }
  static void release(std::byte* p) noexcept {
    used -= sizes.at(p), ++releases;
    blocks.erase(p), sizes.erase(p);
    std::free(p);
  }
  static void reset(std::size_t bytes) { capacity = bytes, used = allocations = releases = 0; }
};

TEST(CachingPool, SizeClassesWasteAtMostAQuarter) {
  EXPECT_EQ(CachingPool::size_class(0), 512u);
  EXPECT_EQ(CachingPool::size_class(512), 512u);
  EXPECT_EQ(CachingPool::size_class(513), 640u);
  EXPECT_EQ(CachingPool::size_class(4096), 4096u);
  EXPECT_EQ(CachingPool::size_class(4097), 5120u);
  for (std::size_t bytes = 1; bytes < (std::size_t{1} << 40); bytes = bytes * 3 + 7) {
    const std::size_t size = CachingPool::size_class(bytes);
    EXPECT_GE(size, bytes);
    if (bytes > 512) {
      EXPECT_LE(size, bytes + bytes / 4) << bytes;
    }
  }
}

TEST(CachingPool, AFreedBlockServesTheNextRequestOfItsClass) {
  FakeDevice::reset(1 << 20);
  CachingPool pool(FakeDevice::allocate, FakeDevice::release);
  std::byte* a = pool.allocate(1000);
  pool.release(a);
  EXPECT_EQ(pool.cached_bytes(), CachingPool::size_class(1000));
  EXPECT_EQ(pool.allocate(900), a);  // same class (1024)
  EXPECT_EQ(FakeDevice::allocations, 1u);
  std::byte* b = pool.allocate(1000);  // the cached one is in use: a new block
  EXPECT_NE(b, a);
  EXPECT_EQ(pool.live_bytes(), 2 * CachingPool::size_class(1000));
  pool.release(a);
  pool.release(b);
  pool.release(nullptr);
  pool.trim();
  EXPECT_EQ(FakeDevice::used, 0u);
  EXPECT_EQ(FakeDevice::releases, 2u);
}

TEST(CachingPool, OutOfMemoryGivesTheCacheBackAndTriesAgain) {
  FakeDevice::reset(4096);
  CachingPool pool(FakeDevice::allocate, FakeDevice::release);
  pool.release(pool.allocate(2048));
  pool.release(pool.allocate(1024));
  EXPECT_EQ(FakeDevice::used, 3072u);
  std::byte* big = pool.allocate(3072);  // fits only once the cache is given back
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  EXPECT_EQ(FakeDevice::used, 3072u);
  EXPECT_EQ(pool.allocate(2048), nullptr);  // truly full: the caller reports it
  pool.release(big);
}

TEST(CachingPool, ForeignPointersAreNotHandedOut) {
  FakeDevice::reset(1 << 20);
  CachingPool pool(FakeDevice::allocate, FakeDevice::release);
  std::byte stack[16];
  pool.release(stack);
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(CachingPool, DestroyingThePoolGivesEverythingCachedBack) {
  FakeDevice::reset(1 << 20);
  {
    CachingPool pool(FakeDevice::allocate, FakeDevice::release);
    for (std::size_t bytes : {100, 5000, 70000}) pool.release(pool.allocate(bytes));
  }
  EXPECT_EQ(FakeDevice::used, 0u);
  EXPECT_TRUE(FakeDevice::blocks.empty());
}

}  // namespace
}  // namespace geoalign
