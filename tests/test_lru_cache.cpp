#include <gtest/gtest.h>

#include "runtime/lru_cache.h"

namespace geoalign::runtime {
namespace {

TEST(LruCache, EvictsTheLeastRecentlyUsed) {
  LruCache<int> cache(2);
  cache.put("a", 1);
  cache.put("b", 2);
  EXPECT_EQ(cache.get("a"), 1);  // a is now the most recent
  cache.put("c", 3);             // evicts b
  EXPECT_FALSE(cache.get("b").has_value());
  EXPECT_EQ(cache.get("a"), 1);
  EXPECT_EQ(cache.get("c"), 3);
  cache.put("a", 10);
  EXPECT_EQ(cache.get("a"), 10);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(LruCache, ZeroCapacityStoresNothing) {
  LruCache<int> cache(0);
  cache.put("a", 1);
  EXPECT_FALSE(cache.get("a").has_value());
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace geoalign::runtime
