#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "geoalign/error.h"

namespace geoalign {

namespace open_file_detail {
// "cannot <verb> [what ]path: <the system's reason>", from the errno the open left.
inline Error failure(const char* verb, const std::string& what, const std::filesystem::path& path, int reason) {
  return Error(std::string("cannot ") + verb + " " + (what.empty() ? "" : what + " ") + path.string() + ": " +
               (reason != 0 ? std::strerror(reason) : "the system gave no reason"));
}
}  // namespace open_file_detail

// Opens a file for reading in binary mode, or throws an Error that names it and says why
// not (the system's reason: "No such file or directory", "Permission denied", "Is a
// directory"). `what` says what the file is for ("vocabulary", "--data"); empty for none.
inline std::ifstream open_for_reading(const std::filesystem::path& path, const std::string& what = "") {
  // A directory opens for reading (and fails at the first read): say so instead.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw open_file_detail::failure("open", what, path, EISDIR);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw open_file_detail::failure("open", what, path, errno);
  return in;
}

// Creates (or truncates) a file for writing, or throws an Error that names it and says why not.
inline std::ofstream open_for_writing(const std::filesystem::path& path, const std::string& what = "") {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw open_file_detail::failure("create", what, path, errno);
  return out;
}

}  // namespace geoalign
