#pragma once

// The clean-up geoalign applies to an address before reading it, for callers that show or
// store the text it compares.

#include <string>
#include <string_view>

namespace geoalign {

// The address as `geoalign parse` reads it unless told --no-normalize: markup decoded
// (&nbsp;, &amp;), full-width forms and traditional characters folded, spaces and
// invisible characters dropped. Deterministic and thread-safe; throws Error on invalid
// UTF-8.
std::string normalize_address(std::string_view utf8);

// True when the text holds nothing but whitespace, control and invisible characters once
// its markup is decoded: an address every interface refuses as blank. Throws Error on
// invalid UTF-8.
bool is_blank_address(std::string_view utf8);

}  // namespace geoalign
