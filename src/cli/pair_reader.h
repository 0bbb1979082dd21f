#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <variant>

#include "cli/line_reader.h"

namespace geoalign::cli {

struct PairRow {
  std::size_t line = 0;
  std::string a, b;
  std::string rest;  // any columns after the second, tab-joined
};

struct BadRow {
  std::size_t line = 0;
  std::string reason;
};

// Reads "addr1<TAB>addr2[<TAB>more]" rows. A first line starting "addr1<TAB>addr2" is a
// header and is skipped. Every other line yields exactly one PairRow or BadRow, so no
// input row can vanish: blank lines, missing tabs, empty addresses, invalid UTF-8 and
// oversized lines all come back as BadRow with their line number.
class PairReader {
 public:
  PairReader(std::istream& in, std::string source_name)
      : lines_(in, std::move(source_name)) {}
  // False at the end; throws geoalign::Error on a read error.
  bool next(std::variant<PairRow, BadRow>& row);
  std::uint64_t bytes_read() const { return lines_.bytes_read(); }

 private:
  LineReader lines_;
};

}  // namespace geoalign::cli
