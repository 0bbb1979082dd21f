#pragma once

#include <sched.h>
#include <sys/types.h>

#include <vector>

namespace geoalign::testing {

// The CPUs thread `tid` may run on, as the kernel reports them (0: the calling thread);
// empty when it cannot say (the thread has ended).
inline std::vector<int> cpus_of_thread(pid_t tid = 0) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(tid, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace geoalign::testing
