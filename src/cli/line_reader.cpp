#include "cli/line_reader.h"

#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::cli {

bool LineReader::next(InputLine& line) {
  line.text.clear();
  line.problem.clear();
  if (!std::getline(in_, line.text)) {
    if (in_.bad()) throw Error("read error after line " + std::to_string(number_) + " of " + source_name_);
    return false;
  }
  line.number = ++number_;
  if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  if (line.text.size() > kMaxLineBytes) {
    line.problem = "line is longer than " + std::to_string(kMaxLineBytes) + " bytes";
  } else if (const auto bad = text::find_invalid_utf8(line.text)) {
    line.problem = "invalid UTF-8 at byte " + std::to_string(*bad + 1) + " of the line";
  }
  return true;
}

}  // namespace geoalign::cli
