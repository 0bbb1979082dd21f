#pragma once

#include <istream>
#include <string>
#include <string_view>

#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::geo {

// "file:line", where a vendored table's error points.
inline std::string table_place(const std::string& source_name, std::size_t line) {
  return source_name + ":" + std::to_string(line);
}

// Calls fn(line, number) for each data line of a vendored table (divisions.tsv,
// historical.tsv): without its line end (LF or CRLF), blank and '#' lines skipped.
// Invalid UTF-8 or a read error is an Error naming the place. Returns the lines read.
template <typename Fn>
std::size_t for_each_table_line(std::istream& in, const std::string& source_name, Fn&& fn) {
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (const auto bad = text::find_invalid_utf8(line)) {
      throw Error(table_place(source_name, number) + ": invalid UTF-8 at byte " + std::to_string(*bad + 1));
    }
    fn(std::string_view(line), number);
  }
  if (in.bad()) throw Error(source_name + ": read error after line " + std::to_string(number));
  return number;
}

}  // namespace geoalign::geo
