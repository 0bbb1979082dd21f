// pin_team_to_cores: the server's model thread and its OpenMP workers, each on a core of
// its own. Checked against what the kernel reports (sched_getaffinity) for every thread of
// the team. Each case runs on a fresh thread, whose OpenMP workers end with it, so no
// pinning leaks into other tests.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include "backend/threads.h"
#include "support/affinity.h"

namespace geoalign {
namespace {

using testing::cpus_of_thread;

// The CPUs each thread of a team of `team` threads may run on, by thread number.
std::vector<std::vector<int>> team_affinities(int team) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(team));
#pragma omp parallel num_threads(team)
  out[static_cast<std::size_t>(omp_get_thread_num())] = cpus_of_thread();
  return out;
}

void on_fresh_thread(const std::function<void()>& body) { std::thread(body).join(); }

TEST(PinThreads, AutoPinsATeamOfOnePerAllowedCpuEachToItsOwnCpu) {
  on_fresh_thread([] {
    const std::vector<int> allowed = cpus_of_thread();
    const int team = static_cast<int>(allowed.size());
    omp_set_num_threads(team);
    ASSERT_TRUE(pin_team_to_cores(PinThreads::Auto));
    const auto affinities = team_affinities(team);
    std::set<int> used;
    for (const auto& cpus : affinities) {
      ASSERT_EQ(cpus.size(), 1u);
      EXPECT_TRUE(std::count(allowed.begin(), allowed.end(), cpus[0]) == 1);
      used.insert(cpus[0]);
    }
    EXPECT_EQ(used.size(), allowed.size());   // no two threads share a CPU
    EXPECT_EQ(cpus_of_thread().size(), 1u);  // the calling thread is thread 0 of its team
  });
}

TEST(PinThreads, AutoLeavesASmallerTeamToTheScheduler) {
  on_fresh_thread([] {
    const std::vector<int> allowed = cpus_of_thread();
    if (allowed.size() < 2) GTEST_SKIP() << "needs two CPUs";
    omp_set_num_threads(1);
    EXPECT_FALSE(pin_team_to_cores(PinThreads::Auto));
    EXPECT_EQ(cpus_of_thread(), allowed);
  });
}

TEST(PinThreads, OnPinsASmallerTeamToTheFirstAllowedCpus) {
  on_fresh_thread([] {
    const std::vector<int> allowed = cpus_of_thread();
    omp_set_num_threads(1);
    ASSERT_TRUE(pin_team_to_cores(PinThreads::On));
    EXPECT_EQ(cpus_of_thread(), std::vector<int>{allowed[0]});
  });
}

TEST(PinThreads, OffAndATeamLargerThanTheCpusChangeNothing) {
  on_fresh_thread([] {
    const std::vector<int> allowed = cpus_of_thread();
    omp_set_num_threads(static_cast<int>(allowed.size()));
    EXPECT_FALSE(pin_team_to_cores(PinThreads::Off));
    EXPECT_EQ(cpus_of_thread(), allowed);
    omp_set_num_threads(static_cast<int>(allowed.size()) + 1);
    EXPECT_FALSE(pin_team_to_cores(PinThreads::On));
    EXPECT_EQ(cpus_of_thread(), allowed);
    for (const auto& cpus : team_affinities(static_cast<int>(allowed.size()) + 1)) EXPECT_EQ(cpus, allowed);
  });
}

}  // namespace
}  // namespace geoalign
