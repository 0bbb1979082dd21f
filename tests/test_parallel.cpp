// Exceptions thrown by the items of a parallel loop reach the caller: an exception that
// left an OpenMP region would end the process (std::terminate).
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <new>
#include <string>
#include <vector>

#include "backend/cpu/parallel.h"
#include "geoalign/error.h"
#include "runtime/run_in_parallel.h"

namespace geoalign {
namespace {

// More threads than this machine may have cores: the loops must hold with real concurrency.
class ParallelLoops : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = omp_get_max_threads();
    omp_set_num_threads(4);
  }
  void TearDown() override { omp_set_num_threads(saved_); }

 private:
  int saved_ = 1;
};

TEST_F(ParallelLoops, TheLowestFailingItemsExceptionReachesTheCaller) {
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> ran{0};
    try {
      cpu::parallel_for_dynamic(1000, 1, [&](std::int64_t i) {
        ++ran;
        if (i == 977 || i == 311 || i == 500) throw Error("item " + std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "item 311");  // whichever thread reached 977 or 500 first
    }
    EXPECT_GE(ran.load(), 312);  // every item before it ran
  }
  EXPECT_THROW(cpu::parallel_for(64, [](std::int64_t i) {
                 if (i == 63) throw std::bad_alloc();
               }),
               std::bad_alloc);
}

TEST_F(ParallelLoops, ItemsAfterAFailureAreSkipped) {
  std::atomic<int> after{0};
  EXPECT_THROW(cpu::parallel_for_dynamic(100000, 1,
                                         [&](std::int64_t i) {
                                           if (i == 0) throw Error("first");
                                           if (i > 50000) ++after;
                                         }),
               Error);
  EXPECT_LT(after.load(), 50000);
}

TEST_F(ParallelLoops, ANestedLoopsExceptionReachesTheOuterCaller) {
  try {
    cpu::parallel_for(8, [](std::int64_t outer) {
      cpu::parallel_for_dynamic(8, 1, [&](std::int64_t inner) {
        if (outer == 5 && inner == 2) throw Error("inner failed");
      });
    });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "inner failed");
  }
}

TEST_F(ParallelLoops, EachThreadOfARegionMayThrow) {
  std::atomic<int> threads{0};
  try {
    cpu::parallel_threads([&](std::int64_t t, std::int64_t n) {
      ++threads;
      if (t == n - 1) throw Error("last thread of " + std::to_string(n));
    });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "last thread of " + std::to_string(threads.load()));
  }
}

TEST_F(ParallelLoops, NamedLoopsNameTheItemAndEachItemMayFailAlone) {
  try {
    runtime::for_each_named(
        100, 3, [](std::size_t k) { return "row " + std::to_string(k + 1); },
        [](std::size_t k) {
          if (k % 10 == 7) throw Error("bad");
          if (k == 99) throw 42;  // not a std::exception
        });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "row 8: bad");
  }
  try {
    runtime::for_each_named(4, 1, [](std::size_t k) { return "item " + std::to_string(k); }, [](std::size_t k) {
      if (k == 3) throw 42;
    });
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "item 3: unknown error");
  }
  const auto errors = runtime::errors_of_each(6, 1, [](std::size_t k) {
    if (k == 1) throw Error("one");
    if (k == 4) throw std::bad_alloc();
  });
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_EQ(errors[1], "one");
  EXPECT_EQ(errors[4], "out of memory");
  EXPECT_FALSE(errors[0] || errors[2] || errors[3] || errors[5]);
}

}  // namespace
}  // namespace geoalign
