#pragma once

#include "geoalign/threads.h"

namespace geoalign {

// set_num_threads, process_num_threads and available_cores are public
// (geoalign/threads.h). OpenMP keeps the count per thread, so a thread that runs the model
// (the server's batcher, a library user's worker) calls adopt_num_threads() first.

// set_num_threads(n) where n asks for a count, and for 0 only while no count has been set:
// a model loaded with "threads 0" keeps the count the process chose before.
void use_num_threads(int n);
// The calling thread's count now (a SerialThreadScope makes it 1).
int num_threads();
// Gives the calling thread the count of the last set_num_threads (a no-op before any).
void adopt_num_threads();
// Ends the calling thread's idle OpenMP workers, for a thread that hands the model over to
// another (the server's main thread, after loading). libgomp lets waiting workers spin
// only while it manages no more threads than there are cores; a second, idle team would
// make every parallel region of the model's thread sleep and wake its workers through
// the kernel (about twice the batch-1 latency on 2 cores).
void release_idle_threads();
// Runs the calling thread's parallel regions on that thread alone, for a thread that
// works beside the model's (the batcher's after-model threads): a second team of OpenMP
// workers would slow every parallel region of the model, as above.
void run_serially_on_this_thread();

// Gives the calling thread the lowest scheduling priority (SCHED_IDLE), for threads whose
// work runs beside the model's and must not slow its batches (the batcher's after-model
// threads: parsing, search's lookup and rerank; the server's JSON workers): they take
// every cycle the model leaves, and when the model's threads wake they get the cores at
// once, so a batch's parallel regions never wait for a worker pushed off its core. Under
// a load that keeps the model busy without pause, such work waits.
void run_at_background_priority_on_this_thread();

// Pins each thread of the calling thread's OpenMP team to a core of its own (the
// process's allowed CPUs, in order), for the thread that runs the model beside threads of
// lower priority (the server's batcher). Unpinned, the scheduler left the model's thread
// and its OpenMP worker sharing one core in 4 ms turns while a background thread held the
// other (1-pair batches of 30-50 ms under /v1/parse load): the two spin at every barrier,
// so no wakeup ever moved one of them.
enum class PinThreads {
  Auto,  // only when the team has a thread for every allowed CPU: it then takes no core from anyone
  On,    // whenever the team fits (a process started under taskset with fewer threads than CPUs)
  Off,
};
// True when the team's threads are pinned now; false, changing nothing, when the policy,
// the team's size or the system says no.
bool pin_team_to_cores(PinThreads policy);

// For a thread that loads a model while another thread loads beside it: the calling
// thread's parallel regions (packing and quantizing weights) run on it alone until the
// scope ends, since after every parallel region an OpenMP worker spins for a while on
// the core the other loader needs. oneDNN sizes a kernel's threading when the kernel is
// made, so the kernels are still made for the thread count the scope replaced
// (KernelThreadsScope).
class SerialThreadScope {
 public:
  SerialThreadScope();
  ~SerialThreadScope();
  SerialThreadScope(const SerialThreadScope&) = delete;
  SerialThreadScope& operator=(const SerialThreadScope&) = delete;

 private:
  int outer_;  // the count the enclosing SerialThreadScope replaced, 0 outside one
};

// Where oneDNN kernels are made: the thread count a SerialThreadScope on this thread
// replaced, until this scope ends (outside one, nothing changes).
class KernelThreadsScope {
 public:
  KernelThreadsScope();
  ~KernelThreadsScope();
  KernelThreadsScope(const KernelThreadsScope&) = delete;
  KernelThreadsScope& operator=(const KernelThreadsScope&) = delete;

 private:
  int saved_;
};

}  // namespace geoalign
