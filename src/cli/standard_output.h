#pragma once

namespace geoalign::cli {

// Flushes standard output and throws Error if any write to it has failed (a full disk, a
// closed pipe): a command must not report success over output that was lost.
void check_standard_output();

}  // namespace geoalign::cli
