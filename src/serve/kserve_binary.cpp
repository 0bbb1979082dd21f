#include "serve/kserve_binary.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "text/excerpt.h"

namespace geoalign::serve {

// The wire format is little-endian; so is every machine the server is built for, which
// lets values be copied as they are.
static_assert(std::endian::native == std::endian::little, "kserve_binary assumes a little-endian host");

namespace {

using nlohmann::json;

ApiError bad(const std::string& message) { return {400, "invalid_request", message}; }

// An input's data: BYTES elements back to back, each after its 4-byte length.
std::variant<json, ApiError> decode_bytes(std::string_view data, const std::string& name) {
  json elements = json::array();
  while (!data.empty()) {
    std::uint32_t length = 0;
    if (data.size() < sizeof length) {
      return bad("binary data of input \"" + name + "\": element " + std::to_string(elements.size()) +
                 " has a truncated length (BYTES elements are a 4-byte little-endian length, then the bytes)");
    }
    std::memcpy(&length, data.data(), sizeof length);
    data.remove_prefix(sizeof length);
    if (length > data.size()) {
      return bad("binary data of input \"" + name + "\": element " + std::to_string(elements.size()) + " is " +
                 std::to_string(length) + " bytes long but only " + std::to_string(data.size()) + " remain");
    }
    elements.push_back(std::string(data.substr(0, length)));
    data.remove_prefix(length);
  }
  return elements;
}

// An input's parameters.binary_data_size, if it has one.
std::variant<std::optional<std::size_t>, ApiError> binary_size(const json& input) {
  if (!input.is_object() || !input.contains("parameters")) return std::nullopt;
  const json& parameters = input["parameters"];
  if (!parameters.is_object()) return bad("an input's \"parameters\" must be an object");
  if (!parameters.contains("binary_data_size")) return std::nullopt;
  if (!parameters["binary_data_size"].is_number_unsigned()) return bad("\"binary_data_size\" must be a byte count");
  return static_cast<std::size_t>(parameters["binary_data_size"].get<std::uint64_t>());
}

}  // namespace

std::variant<BinaryBody, ApiError> split_binary_body(std::string_view body, std::string_view header_length) {
  std::size_t n = 0;
  const auto [end, error] = std::from_chars(header_length.data(), header_length.data() + header_length.size(), n);
  if (error != std::errc() || end != header_length.data() + header_length.size()) {
    return bad("Inference-Header-Content-Length must be a byte count");
  }
  if (n > body.size()) {
    return bad("Inference-Header-Content-Length is " + std::to_string(n) + " but the body has only " +
               std::to_string(body.size()) + " bytes");
  }
  return BinaryBody{body.substr(0, n), body.substr(n)};
}

std::optional<ApiError> inline_binary_inputs(json& request, std::string_view binary) {
  const std::size_t total = binary.size();
  if (request.contains("inputs") && request["inputs"].is_array()) {
    for (json& input : request["inputs"]) {
      auto size = binary_size(input);
      if (auto* e = std::get_if<ApiError>(&size)) return *e;
      const auto k = std::get<std::optional<std::size_t>>(size);
      if (!k) continue;
      const std::string name =
          input.contains("name") && input["name"].is_string() ? text::excerpt(input["name"].get<std::string>()) : "?";
      if (input.contains("data")) return bad("input \"" + name + "\" has both \"data\" and \"binary_data_size\"");
      if (*k > binary.size()) {
        return bad("binary inputs need more bytes than the " + std::to_string(total) +
                   " after the inference header (input \"" + name + "\" wants " + std::to_string(*k) + ")");
      }
      auto data = decode_bytes(binary.substr(0, *k), name);
      if (auto* e = std::get_if<ApiError>(&data)) return *e;
      input["data"] = std::move(std::get<json>(data));
      binary.remove_prefix(*k);
    }
  }
  if (!binary.empty()) {
    return bad(std::to_string(binary.size()) + " bytes after the inference header belong to no input's binary_data_size");
  }
  return std::nullopt;
}

void append_bytes(std::string& out, std::span<const std::string> elements) {
  for (const std::string& e : elements) {
    const auto length = static_cast<std::uint32_t>(e.size());
    out.append(reinterpret_cast<const char*>(&length), sizeof length);
    out.append(e);
  }
}

void append_fp32(std::string& out, std::span<const float> elements) {
  out.append(reinterpret_cast<const char*>(elements.data()), elements.size_bytes());
}

}  // namespace geoalign::serve
