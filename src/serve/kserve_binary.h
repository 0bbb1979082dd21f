#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "serve/api.h"

namespace geoalign::serve {

// Triton's binary tensor data extension to KServe v2 inference. A request whose header
// Inference-Header-Content-Length is N carries N bytes of JSON, then the raw data of the
// inputs whose "parameters" hold "binary_data_size", in input order. A response does
// the same for outputs asked for with "binary_data": the client's JSON parser never sees
// the tensors. BYTES elements are each a 4-byte little-endian length and the bytes; FP32
// elements are little-endian float32.

struct BinaryBody {
  std::string_view json;    // the inference header
  std::string_view binary;  // the tensor data after it
};

// Splits a body by the value of its Inference-Header-Content-Length header; 400 when the
// value is not a length or exceeds the body.
std::variant<BinaryBody, ApiError> split_binary_body(std::string_view body, std::string_view header_length);

// Replaces each binary input's parameters.binary_data_size with a "data" array of its
// BYTES elements, so the request reads on as a JSON one. 400 when a size is not a count,
// an input has both, the sizes do not add up to the binary section, or an element runs
// past its input's data. The strings may hold any bytes: the caller checks their text.
std::optional<ApiError> inline_binary_inputs(nlohmann::json& request, std::string_view binary);

// The wire forms of output tensors.
void append_bytes(std::string& out, std::span<const std::string> elements);
void append_fp32(std::string& out, std::span<const float> elements);

}  // namespace geoalign::serve
