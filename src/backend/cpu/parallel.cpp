#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cpu/available_cores.h"
#include "backend/threads.h"
#include "geoalign/error.h"

namespace geoalign {

namespace {
std::atomic<int> g_num_threads{0};  // 0: never set, OpenMP's own default
// The thread count the innermost SerialThreadScope on this thread replaced; 0 outside one.
thread_local int t_threads_outside_serial = 0;
}

void set_num_threads(int n) {
  if (n < 0 || n > kMaxThreads) {
    throw Error("threads must be 0 (one per core) to " + std::to_string(kMaxThreads) + ", not " + std::to_string(n));
  }
  // OMP_NUM_THREADS when set (read before anything here changes it), else one thread
  // per core this process may use.
  static const int default_threads = std::getenv("OMP_NUM_THREADS") ? omp_get_max_threads() : cpu::available_cores();
  if (n == 0) n = std::clamp(default_threads, 1, kMaxThreads);
  g_num_threads = n;
  omp_set_num_threads(n);
}

void use_num_threads(int n) {
  if (n != 0 || g_num_threads.load() == 0) set_num_threads(n);
}

namespace {
// libgomp keeps each thread's pool of OpenMP workers across parallel regions, and a child
// process inherits the pool but not its threads: its first parallel region waited for
// workers that do not exist (a Python worker forked after loading a Matcher hung). The
// forking thread's pool is released before every fork, so the child starts without one
// and the parent makes its workers again at its next region.
void release_pool_before_fork() {
  if (!omp_in_parallel()) omp_pause_resource_all(omp_pause_soft);
}

[[maybe_unused]] const bool g_fork_handler = [] {
  return ::pthread_atfork(release_pool_before_fork, nullptr, nullptr) == 0;
}();
}  // namespace

void adopt_num_threads() {
  const int n = g_num_threads.load();
  if (n > 0 && omp_get_max_threads() != n) omp_set_num_threads(n);
}

void release_idle_threads() {
  if (!omp_in_parallel()) omp_pause_resource_all(omp_pause_soft);
}

void run_serially_on_this_thread() { omp_set_num_threads(1); }

void run_at_background_priority_on_this_thread() {
  // SCHED_IDLE: the thread runs when a core would otherwise idle, and a thread of the
  // normal policy that wakes (the model's, its OpenMP workers) takes the core at once.
  // A lower nice value is not enough: since Linux 6.6 (EEVDF) a woken thread waits for
  // the running one's slice, and a batch's every parallel region waited for it (1-vCPU
  // slices times fifty regions: 100-200 ms batches under /v1/parse load).
  sched_param param{};
  if (::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &param) != 0) {
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    ::setpriority(PRIO_PROCESS, tid, 19);  // where SCHED_IDLE is refused, at least the lowest nice
  }
}

bool pin_team_to_cores(PinThreads policy) {
  if (policy == PinThreads::Off || omp_in_parallel()) return false;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  const int team = omp_get_max_threads();
  const auto allowed_count = static_cast<int>(cpus.size());
  if (team > allowed_count || (policy == PinThreads::Auto && team != allowed_count)) return false;
  std::atomic<int> pinned{0};
#pragma omp parallel num_threads(team)
  {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[static_cast<std::size_t>(omp_get_thread_num())], &one);
    if (::pthread_setaffinity_np(::pthread_self(), sizeof one, &one) == 0) ++pinned;
  }
  return pinned == team;
}

SerialThreadScope::SerialThreadScope() : outer_(t_threads_outside_serial) {
  t_threads_outside_serial = omp_get_max_threads();
  omp_set_num_threads(1);
}
SerialThreadScope::~SerialThreadScope() {
  omp_set_num_threads(t_threads_outside_serial);
  t_threads_outside_serial = outer_;
}

KernelThreadsScope::KernelThreadsScope() : saved_(omp_get_max_threads()) {
  if (t_threads_outside_serial > 0) omp_set_num_threads(t_threads_outside_serial);
}
KernelThreadsScope::~KernelThreadsScope() { omp_set_num_threads(saved_); }

int num_threads() { return omp_get_max_threads(); }

int process_num_threads() {
  const int n = g_num_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

int available_cores() { return cpu::available_cores(); }

}  // namespace geoalign
