#pragma once

#include <cstdio>
#include <string>

namespace geoalign::svg {

// Text as XML character data: a URL's & or < must not end the document.
inline std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// printf into a string, for one element of a chart (at most 511 bytes: append longer text,
// such as a title, whole).
inline std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace geoalign::svg
