#include "cli/pair_reader.h"

#include "text/markup.h"
#include "text/unicode.h"

namespace geoalign::cli {

bool PairReader::next(std::variant<PairRow, BadRow>& row) {
  InputLine line;
  while (lines_.next(line)) {
    const std::string& text = line.text;
    // A header names its first two columns addr1 and addr2 (a third, label, may follow).
    constexpr std::string_view kHeader = "addr1\taddr2";
    if (line.number == 1 && text.starts_with(kHeader) && (text.size() == kHeader.size() || text[kHeader.size()] == '\t')) {
      continue;
    }
    if (!line.problem.empty()) {
      row = BadRow{line.number, line.problem};
      return true;
    }
    const auto tab = text.find('\t');
    if (tab == std::string::npos) {
      row = BadRow{line.number, text.empty() ? "empty line" : "no tab: expected addr1<TAB>addr2"};
      return true;
    }
    const auto tab2 = text.find('\t', tab + 1);
    PairRow pair{line.number, text.substr(0, tab),
                 text.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1),
                 tab2 == std::string::npos ? std::string() : text.substr(tab2 + 1)};
    if (text::is_blank_address(pair.a)) {
      row = BadRow{line.number, "addr1 is empty"};
    } else if (text::is_blank_address(pair.b)) {
      row = BadRow{line.number, "addr2 is empty"};
    } else {
      row = std::move(pair);
    }
    return true;
  }
  return false;
}

}  // namespace geoalign::cli
