#pragma once

#include <fstream>
#include <string>

#include "common/open_file.h"

namespace geoalign::cli {

// An output file, opened before the long work so that a path that cannot be written
// fails at once, not after an hour of dedup or link. An empty path: none wanted.
struct OutputFile {
  std::string path;
  std::ofstream stream;
  explicit OutputFile(std::string p) : path(std::move(p)) {
    if (path.empty()) return;
    stream = open_for_writing(path);
  }
  bool wanted() const { return !path.empty(); }
};

}  // namespace geoalign::cli
