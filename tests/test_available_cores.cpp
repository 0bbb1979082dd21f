// The default thread count follows a cgroup CPU quota: a made-up cgroup tree stands in
// for /sys/fs/cgroup.
#include <gtest/gtest.h>

#include <fstream>

#include "backend/cpu/available_cores.h"
#include "backend/threads.h"
#include "support/temp_dir.h"

namespace geoalign::testing {
namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(CgroupCoreLimit, V2QuotaRoundsUpAndTheTightestAncestorWins) {
  TempDir root;
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "0::/pods/worker\n"), std::nullopt) << "no files, no limit";
  write(root / "pods/worker/cpu.max", "max 100000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "0::/pods/worker\n"), std::nullopt) << "max means none";
  write(root / "pods/worker/cpu.max", "150000 100000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "0::/pods/worker\n"), 2);
  write(root / "pods/cpu.max", "50000 100000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "0::/pods/worker\n"), 1) << "a parent's half core";
}

TEST(CgroupCoreLimit, InsideAContainerTheLimitSitsAtTheRoot) {
  TempDir root;
  write(root / "cpu.max", "400000 100000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "0::/\n"), 4);
}

TEST(CgroupCoreLimit, V1QuotaOfTheCpuController) {
  TempDir root;
  const std::string self = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n";
  write(root / "cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
  write(root / "cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), self), std::nullopt) << "-1 means none";
  write(root / "cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "300000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), self), 3);
}

TEST(CgroupCoreLimit, MalformedFilesAreIgnored) {
  TempDir root;
  write(root / "cpu.max", "lots 100000\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "0::/\n"), std::nullopt);
  write(root / "cpu.max", "200000 0\n");
  EXPECT_EQ(cpu::cgroup_core_limit(root.path(), "garbage\n0::/\n"), std::nullopt);
}

TEST(AvailableCores, AtLeastOneAndTheDefaultThreadCount) {
  EXPECT_GE(cpu::available_cores(), 1);
  if (std::getenv("OMP_NUM_THREADS")) GTEST_SKIP() << "OMP_NUM_THREADS sets the default";
  set_num_threads(0);
  EXPECT_EQ(num_threads(), cpu::available_cores());
}

TEST(ThreadScopes, KernelsAreMadeForTheCountASerialScopeReplaced) {
  set_num_threads(3);
  {
    const SerialThreadScope alone;
    EXPECT_EQ(num_threads(), 1);
    {
      const KernelThreadsScope kernels;
      EXPECT_EQ(num_threads(), 3);
    }
    EXPECT_EQ(num_threads(), 1);
    {
      const SerialThreadScope nested;
      const KernelThreadsScope kernels;
      EXPECT_EQ(num_threads(), 1);  // the count the nested scope replaced
    }
    EXPECT_EQ(num_threads(), 1);
  }
  EXPECT_EQ(num_threads(), 3);
  {
    const KernelThreadsScope outside_any;  // changes nothing
    EXPECT_EQ(num_threads(), 3);
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace geoalign::testing
