#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/tensor.h"

namespace geoalign::model {

struct TensorEntry {
  std::string dtype;  // as written in the header: "F32", "BF16", "I64", ...
  Shape shape;
  std::uint64_t begin = 0, end = 0;  // byte range within the data section
};

// A memory-mapped .safetensors file. Opening validates the whole header: its size, its
// JSON, every dtype, shape and data range against the file, so a truncated or corrupt
// file fails at load with the file and tensor named.
class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::filesystem::path& path);
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  bool contains(const std::string& name) const { return entries_.count(name) != 0; }
  const TensorEntry& entry(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::filesystem::path& path() const { return path_; }

  // Reads an F32, F16 or BF16 tensor as F32.
  Tensor load_f32(const std::string& name) const;

 private:
  SafetensorsFile() = default;
  struct Mapping;
  std::filesystem::path path_;
  std::unique_ptr<Mapping> mapping_;
  const std::uint8_t* data_ = nullptr;  // start of the data section
  std::map<std::string, TensorEntry> entries_;
};

}  // namespace geoalign::model
