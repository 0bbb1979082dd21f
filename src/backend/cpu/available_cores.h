#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace geoalign::cpu {

// The cores this process may use: the CPUs of its affinity mask, capped by a CPU quota
// of its cgroup (Docker's --cpus, a Kubernetes CPU limit). The core count alone is the
// host's: 64 OpenMP threads under a 2-core quota spin at every barrier and are
// throttled, and the work runs tens of times slower than on 2 threads.
int available_cores();

// The quota of the cgroup named in `proc_self_cgroup` (the text of /proc/self/cgroup)
// and of its ancestors, under a cgroup file system mounted at `root`, rounded up to
// whole cores; nullopt when none sets one. Reads cgroup v2's cpu.max and v1's
// cpu.cfs_quota_us/cpu.cfs_period_us. Separate so tests can give it a made-up tree.
std::optional<int> cgroup_core_limit(const std::filesystem::path& root, const std::string& proc_self_cgroup);

}  // namespace geoalign::cpu
