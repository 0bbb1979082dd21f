#pragma once

namespace geoalign {

// Threads used by every CPU op and by oneDNN. 0 means one per available core.
void set_num_threads(int n);
int num_threads();

}  // namespace geoalign
