#include "cli/pair_reader.h"

#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::cli {

bool PairReader::next(std::variant<PairRow, BadRow>& row) {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_ == 1 && line.rfind("addr1\taddr2", 0) == 0) continue;

    if (line.size() > kMaxLineBytes) {
      row = BadRow{line_, "line is longer than " + std::to_string(kMaxLineBytes) + " bytes"};
      return true;
    }
    if (const auto bad = text::find_invalid_utf8(line)) {
      row = BadRow{line_, "invalid UTF-8 at byte " + std::to_string(*bad + 1) + " of the line"};
      return true;
    }
    const auto tab = line.find('\t');
    if (tab == std::string::npos) {
      row = BadRow{line_, line.empty() ? "empty line" : "no tab: expected addr1<TAB>addr2"};
      return true;
    }
    const auto tab2 = line.find('\t', tab + 1);
    PairRow pair{line_, line.substr(0, tab),
                 line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1),
                 tab2 == std::string::npos ? std::string() : line.substr(tab2 + 1)};
    if (text::unicode::is_blank(pair.a)) {
      row = BadRow{line_, "addr1 is empty"};
    } else if (text::unicode::is_blank(pair.b)) {
      row = BadRow{line_, "addr2 is empty"};
    } else {
      row = std::move(pair);
    }
    return true;
  }
  if (in_.bad()) throw std::runtime_error("read error after line " + std::to_string(line_));
  return false;
}

}  // namespace geoalign::cli
