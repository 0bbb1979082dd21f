#pragma once

namespace geoalign {

// Threads used by every CPU op and by oneDNN. 0 means one per available core. The count
// holds for the whole process: OpenMP keeps it per thread, so a thread that runs the
// model (the server's batcher, a library user's worker) calls adopt_num_threads() first.
void set_num_threads(int n);
int num_threads();
// Gives the calling thread the count of the last set_num_threads (a no-op before any).
void adopt_num_threads();

}  // namespace geoalign
