#pragma once

#include <fstream>
#include <iostream>
#include <string>

#include "geoalign/error.h"

namespace geoalign::cli {

// A command's input: a file, or standard input for "-".
class InputFile {
 public:
  explicit InputFile(std::string path) : path_(std::move(path)) {
    if (path_ == "-") return;
    file_.open(path_, std::ios::binary);
    if (!file_) throw Error("cannot open " + path_);
  }
  std::istream& stream() { return path_ == "-" ? std::cin : file_; }
  const std::string& path() const { return path_; }
  // How messages name the input: the path, or <stdin>.
  std::string name() const { return path_ == "-" ? "<stdin>" : path_; }

 private:
  std::string path_;
  std::ifstream file_;
};

}  // namespace geoalign::cli
