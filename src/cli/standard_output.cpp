#include "cli/standard_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "geoalign/error.h"

namespace geoalign::cli {

void check_standard_output() {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return;
  const int error = errno;
  throw Error(std::string("standard output: write failed") + (error ? std::string(" (") + std::strerror(error) + ")" : ""));
}

}  // namespace geoalign::cli
