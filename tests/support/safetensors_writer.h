#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace geoalign::testing {

// Writes .safetensors files for tests, including deliberately broken ones.
struct RawTensor {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::string bytes;
};

RawTensor f32_tensor(std::vector<std::int64_t> shape, const std::vector<float>& values);
std::uint16_t to_bf16(float v);  // round to nearest even
std::uint16_t to_f16(float v);   // for normal-range values

std::string safetensors_bytes(const std::map<std::string, RawTensor>& tensors);
// Reads every tensor of a file back as raw bytes (the test's own parser).
std::map<std::string, RawTensor> read_safetensors(const std::filesystem::path& path);

}  // namespace geoalign::testing
