#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace geoalign::text {

// Bytes of a value an error message quotes at most.
inline constexpr std::size_t kExcerptBytes = 64;

// What an error message quotes of a value it names: the value itself when short, else
// its first max_bytes cut at a character boundary, then "... (N bytes)". An answer to a
// bad 900 KB field must not carry the field back, nor a log line hold it.
std::string excerpt(std::string_view value, std::size_t max_bytes = kExcerptBytes);

}  // namespace geoalign::text
