#pragma once

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace geoalign::testing {

// Triton's binary tensor data, written and read byte by byte as the extension specifies
// it, independently of the server's own encoder (serve/kserve_binary.h).

inline std::string le32(std::uint32_t v) {
  return {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff), static_cast<char>((v >> 16) & 0xff),
          static_cast<char>(v >> 24)};
}

// BYTES elements: each a 4-byte little-endian length, then the bytes.
inline std::string bytes_tensor(const std::vector<std::string>& elements) {
  std::string out;
  for (const auto& e : elements) out += le32(static_cast<std::uint32_t>(e.size())) + e;
  return out;
}

inline std::uint32_t read_le32(std::string_view b) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[0])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[3])) << 24;
}

inline std::vector<std::string> read_bytes_tensor(std::string_view b) {
  std::vector<std::string> out;
  while (b.size() >= 4) {
    const std::uint32_t n = read_le32(b);
    out.emplace_back(b.substr(4, n));
    b.remove_prefix(4 + n);
  }
  return out;
}

inline std::vector<float> read_fp32_tensor(std::string_view b) {
  std::vector<float> out;
  for (; b.size() >= 4; b.remove_prefix(4)) {
    const std::uint32_t bits = read_le32(b);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    out.push_back(f);
  }
  return out;
}

// A KServe inference request for the pairs (a[i], b[i]) with binary inputs: the JSON
// header (with `extra` merged into it), then addr1's elements, then addr2's.
struct BinaryInferRequest {
  std::string body;
  std::string header_length;  // the Inference-Header-Content-Length value
};

inline BinaryInferRequest binary_infer_request(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                               const nlohmann::json& extra = nullptr) {
  const std::string data_a = bytes_tensor(a), data_b = bytes_tensor(b);
  const auto input = [](const char* name, std::size_t n, std::size_t size) {
    return nlohmann::json{{"name", name}, {"datatype", "BYTES"}, {"shape", {n}},
                          {"parameters", {{"binary_data_size", size}}}};
  };
  nlohmann::json header = {{"inputs", {input("addr1", a.size(), data_a.size()), input("addr2", b.size(), data_b.size())}}};
  if (!extra.is_null()) header.update(extra);
  const std::string text = header.dump();
  return {text + data_a + data_b, std::to_string(text.size())};
}

}  // namespace geoalign::testing
