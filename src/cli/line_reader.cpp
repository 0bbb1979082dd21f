#include "cli/line_reader.h"

#include <cstdio>
#include <iostream>

#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::cli {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

// Reads through the stream buffer rather than std::getline so that an endless line costs
// at most kMaxLineBytes of memory: the rest of it is counted and dropped.
bool LineReader::next(InputLine& line) {
  line.text.clear();
  line.problem.clear();
  if (pending_blank_lines_ > 0) {
    --pending_blank_lines_;
    line.number = ++number_;
    return true;
  }
  // The sentry flushes std::cout when it is tied to the input, so an interactive user sees
  // each answer before typing the next line.
  if (!std::istream::sentry(in_, true)) return false;
  const auto read_error = [&](const std::string& detail) {
    in_.setstate(std::ios::badbit);
    return Error("read error after line " + std::to_string(number_) + " of " + source_name_ + detail);
  };
  std::streambuf& buffer = *in_.rdbuf();
  std::size_t consumed = 0, line_bytes = 0;
  // Room for the byte-order mark, which does not count against the cap, and one byte more
  // to tell an overlong line from one at the cap.
  constexpr std::size_t kKept = LineReader::kMaxLineBytes + kByteOrderMark.size() + 1;
  try {
    for (int c = buffer.sbumpc(); c != std::char_traits<char>::eof(); c = buffer.sbumpc()) {
      ++consumed;
      if (c == '\n') break;
      // CR LF, a lone CR as old spreadsheet exports end lines, or CR CR LF as a CR LF file
      // written again in Windows text mode ends them: one line end. Read as text, lone CRs
      // would make a whole file one row, and all but its first pair would be lost. CRs not
      // followed by LF end a line each: in a file of lone CRs, CR CR is a blank line.
      if (c == '\r') {
        std::size_t more_crs = 0;
        while (buffer.sgetc() == '\r') {
          buffer.sbumpc();
          ++consumed;
          ++more_crs;
        }
        if (buffer.sgetc() == '\n') {
          buffer.sbumpc();
          ++consumed;
        } else {
          pending_blank_lines_ = more_crs;
        }
        break;
      }
      if (++line_bytes > kMaxUnendedBytes) {
        throw Error("line " + std::to_string(number_ + 1) + " of " + source_name_ + " runs past " +
                    std::to_string(kMaxUnendedBytes >> 20) + " MiB without a line end: not lines of text");
      }
      if (line.text.size() < kKept) line.text.push_back(static_cast<char>(c));
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw read_error(std::string(": ") + e.what());
  }
  // std::cin reads through stdio, which reports a failed read as the end of the input.
  if (&in_ == &std::cin && std::ferror(stdin)) throw read_error("");
  if (consumed == 0) {
    in_.setstate(std::ios::eofbit);
    return false;
  }
  bytes_read_ += consumed;
  line.number = ++number_;
  if (line.number == 1 && line.text.starts_with(kByteOrderMark)) {
    line.text.erase(0, kByteOrderMark.size());
    line_bytes -= kByteOrderMark.size();
  }
  if (line_bytes > kMaxLineBytes) {
    line.problem = "line is longer than " + std::to_string(kMaxLineBytes) + " bytes";
    line.text.clear();
  } else if (const auto bad = text::find_invalid_utf8(line.text)) {
    line.problem = "invalid UTF-8 at byte " + std::to_string(*bad + 1) + " of the line";
  }
  return true;
}

}  // namespace geoalign::cli
