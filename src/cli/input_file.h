#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>

#include "common/open_file.h"
#include "geoalign/error.h"

namespace geoalign::cli {

// How messages name an input: its path, or <stdin> for "-".
inline std::string input_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// A command's input: a file, or standard input for "-".
class InputFile {
 public:
  explicit InputFile(std::string path) : path_(std::move(path)) {
    if (path_ == "-") return;
    file_ = open_for_reading(path_);
    std::error_code not_regular;  // a pipe or device: no size to measure progress against
    const auto bytes = std::filesystem::file_size(path_, not_regular);
    size_ = not_regular ? 0 : bytes;
  }
  std::istream& stream() { return path_ == "-" ? std::cin : file_; }
  const std::string& path() const { return path_; }
  // How messages name the input: the path, or <stdin>.
  std::string name() const { return input_name(path_); }
  // Bytes in the input, or 0 where that is not known beforehand (standard input, a pipe).
  std::uint64_t size() const { return size_; }

 private:
  std::string path_;
  std::ifstream file_;
  std::uint64_t size_ = 0;
};

}  // namespace geoalign::cli
