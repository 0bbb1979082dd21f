#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "geoalign/error.h"

namespace geoalign {

// Opens a file for reading in binary mode, or throws an Error that names it and says why
// not (the system's reason: "No such file or directory", "Permission denied", "Is a
// directory"). `what` says what the file is for ("vocabulary", "--data"); empty for none.
inline std::ifstream open_for_reading(const std::filesystem::path& path, const std::string& what = "") {
  const std::string named = (what.empty() ? "" : what + " ") + path.string();
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw Error("cannot open " + named + ": " + std::strerror(EISDIR));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int reason = errno;
    throw Error("cannot open " + named + ": " + (reason != 0 ? std::strerror(reason) : "the system gave no reason"));
  }
  return in;
}

// Creates (or truncates) a file for writing, or throws an Error that names it and says why not.
inline std::ofstream open_for_writing(const std::filesystem::path& path, const std::string& what = "") {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    const int reason = errno;
    throw Error("cannot create " + (what.empty() ? "" : what + " ") + path.string() + ": " +
                (reason != 0 ? std::strerror(reason) : "the system gave no reason"));
  }
  return out;
}

}  // namespace geoalign
