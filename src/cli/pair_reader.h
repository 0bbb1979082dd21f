#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <variant>

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
  static constexpr std::size_t kMaxLineBytes = 1 << 20;

  explicit PairReader(std::istream& in) : in_(in) {}
  bool next(std::variant<PairRow, BadRow>& row);

 private:
  std::istream& in_;
  std::size_t line_ = 0;
};

}  // namespace geoalign::cli
