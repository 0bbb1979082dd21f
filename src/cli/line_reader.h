#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

namespace geoalign::cli {

// One line of text input: its number (from 1) and its text without the line ending, or
// the reason it cannot be used (oversized, invalid UTF-8). Blank lines come back as
// lines with empty text; what they mean is the caller's business.
struct InputLine {
  std::size_t number = 0;
  std::string text;
  std::string problem;  // empty when the text is usable
};

// The checks every line-oriented command needs, in one place: LF, CRLF or lone CR endings, a size
// cap, valid UTF-8, and a read error that is not mistaken for the end of the input.
class LineReader {
 public:
  static constexpr std::size_t kMaxLineBytes = 1 << 20;
  // A longer line is skipped, counted and reported; past this without a line end the input
  // is not lines of text (a binary file, /dev/zero) and reading stops with an Error.
  static constexpr std::size_t kMaxUnendedBytes = 64 << 20;

  LineReader(std::istream& in, std::string source_name) : in_(in), source_name_(std::move(source_name)) {}

  // False at the end of the input; throws geoalign::Error naming the source on a read
  // error or a line that runs past kMaxUnendedBytes.
  bool next(InputLine& line);

  // Bytes consumed so far, line endings and byte-order mark included: set against the
  // input's size, how far through it the reader is.
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  std::istream& in_;
  std::string source_name_;
  std::size_t number_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::size_t pending_blank_lines_ = 0;  // lone CRs read past the end of the last line
};

}  // namespace geoalign::cli
