#include "support/safetensors_writer.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "support/temp_dir.h"

namespace geoalign::testing {

RawTensor f32_tensor(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  RawTensor t{"F32", std::move(shape), std::string(values.size() * 4, '\0')};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::uint16_t to_bf16(float v) {
  const auto bits = std::bit_cast<std::uint32_t>(v);
  const std::uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

std::uint16_t to_f16(float v) {
  const auto bits = std::bit_cast<std::uint32_t>(v);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
  if (v == 0.0f) return sign;
  const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  const std::uint32_t mantissa = bits & 0x7FFFFF;
  return static_cast<std::uint16_t>(sign | (exponent << 10) | (mantissa >> 13));
}

std::string safetensors_bytes(const std::map<std::string, RawTensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& [name, t] : tensors) {
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data += t.bytes;
  }
  const std::string text = header.dump();
  std::string out(8, '\0');
  const std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + text + data;
}

std::map<std::string, RawTensor> read_safetensors(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  std::map<std::string, RawTensor> out;
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") continue;
    const auto begin = v["data_offsets"][0].get<std::size_t>();
    const auto end = v["data_offsets"][1].get<std::size_t>();
    out[name] = RawTensor{v["dtype"], v["shape"].get<std::vector<std::int64_t>>(), bytes.substr(8 + n + begin, end - begin)};
  }
  return out;
}

}  // namespace geoalign::testing
