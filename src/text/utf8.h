#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "geoalign/error.h"

namespace geoalign::text {

// Strict UTF-8: overlong forms, surrogates and code points past U+10FFFF are invalid,
// because the Python reference (and Hugging Face) reject them too.
class Utf8Error : public Error {
 public:
  Utf8Error(std::size_t byte_offset, const std::string& message);
  std::size_t byte_offset() const { return byte_offset_; }

 private:
  std::size_t byte_offset_;
};

// Offset of the first byte that does not start a valid sequence, or nullopt if valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view s);

// Throws Utf8Error on invalid input.
std::u32string decode_utf8(std::string_view s);

void append_utf8(std::string& out, char32_t cp);
std::string encode_utf8(std::u32string_view s);

}  // namespace geoalign::text
