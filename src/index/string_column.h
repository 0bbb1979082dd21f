#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "index/binary_file.h"

namespace geoalign::index {

// Many strings in one buffer: a million addresses cost their bytes plus 8 each, not a
// std::string apiece.
class StringColumn {
 public:
  StringColumn() : offsets_{0} {}

  void push_back(std::string_view s) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    offsets_.push_back(bytes_.size());
  }
  std::string_view operator[](std::size_t i) const {
    return {bytes_.data() + offsets_[i], static_cast<std::size_t>(offsets_[i + 1] - offsets_[i])};
  }
  std::size_t size() const { return offsets_.size() - 1; }

  void write(BinaryWriter& out) const {
    out.array<char>(bytes_);
    out.array<std::uint64_t>(offsets_);
  }
  static StringColumn read(BinaryReader& in, const char* what) {
    StringColumn c;
    c.bytes_ = in.array<char>(what);
    c.offsets_ = in.array<std::uint64_t>(what);
    if (c.offsets_.empty() || c.offsets_.front() != 0 || c.offsets_.back() != c.bytes_.size()) {
      in.corrupt(std::string(what) + ": offsets do not cover the text");
    }
    for (std::size_t i = 1; i < c.offsets_.size(); ++i) {
      if (c.offsets_[i] < c.offsets_[i - 1]) in.corrupt(std::string(what) + ": offsets out of order");
    }
    return c;
  }

 private:
  std::vector<char> bytes_;
  std::vector<std::uint64_t> offsets_;
};

}  // namespace geoalign::index
