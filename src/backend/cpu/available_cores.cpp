#include "backend/cpu/available_cores.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace geoalign::cpu {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<int> cores_of(double quota, double period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

// cgroup v2: "max 100000" (no limit) or "200000 100000".
std::optional<int> v2_limit(const fs::path& dir) {
  const auto text = read_text(dir / "cpu.max");
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max") return std::nullopt;
  try {
    return cores_of(std::stod(quota), period);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// cgroup v1: a quota of -1 means no limit.
std::optional<int> v1_limit(const fs::path& dir) {
  const auto quota = read_text(dir / "cpu.cfs_quota_us");
  const auto period = read_text(dir / "cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  try {
    return cores_of(std::stod(*quota), std::stod(*period));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The directory and its ancestors up to `top`, where `top` is a prefix of `dir`.
std::vector<fs::path> up_to(const fs::path& top, fs::path dir) {
  std::vector<fs::path> dirs;
  for (;;) {
    dirs.push_back(dir);
    if (dir == top || !dir.has_relative_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return dirs;
}

void keep_smaller(std::optional<int>& limit, std::optional<int> found) {
  if (found && (!limit || *found < *limit)) limit = found;
}

}  // namespace

std::optional<int> cgroup_core_limit(const fs::path& root, const std::string& proc_self_cgroup) {
  std::optional<int> limit;
  std::istringstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path", v1's CPU line names "cpu".
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const fs::path path = fs::path(line.substr(second + 1)).relative_path();
    if (controllers.empty()) {
      for (const auto& dir : up_to(root, root / path)) keep_smaller(limit, v2_limit(dir));
      continue;
    }
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');) {
      if (name != "cpu") continue;
      // v1 mounts the controller as "cpu,cpuacct" or "cpu"; in a container the cgroup's
      // own directory is usually the mount's root, so try both.
      for (const char* mount : {"cpu,cpuacct", "cpu"}) {
        const fs::path top = root / mount;
        for (const auto& dir : up_to(top, top / path)) keep_smaller(limit, v1_limit(dir));
        keep_smaller(limit, v1_limit(top));
      }
    }
  }
  // Inside a container's own cgroup namespace the path is "/" and the limit sits at the root.
  keep_smaller(limit, v2_limit(root));
  return limit;
}

int available_cores() {
  static const int cores = [] {
    int n = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
    if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
    if (const auto self = read_text("/proc/self/cgroup")) {
      if (const auto limit = cgroup_core_limit("/sys/fs/cgroup", *self)) n = std::min(n > 0 ? n : *limit, *limit);
    }
    return std::max(1, n);
  }();
  return cores;
}

}  // namespace geoalign::cpu
