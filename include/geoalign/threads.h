#pragma once

// The CPU threads geoalign computes with, for the whole process.

namespace geoalign {

// Threads used by every CPU op and by oneDNN. 0 means OMP_NUM_THREADS when set, else one
// per core this process may use (available_cores()). The count holds for the whole
// process, whichever thread later scores, searches or deduplicates (each of geoalign's
// calls adopts it). Throws Error outside 0..kMaxThreads (libgomp crashed making a team
// of 100,000).
inline constexpr int kMaxThreads = 1024;
void set_num_threads(int n);
// The process's count: the last set_num_threads, else OpenMP's default.
int process_num_threads();
// Cores this process may use: its CPU affinity mask, capped by a cgroup CPU quota (a
// container's limit).
int available_cores();

}  // namespace geoalign
