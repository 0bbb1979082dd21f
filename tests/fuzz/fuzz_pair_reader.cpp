// libFuzzer: arbitrary bytes as a TSV input. Every line must come back as exactly one
// pair or one bad row, with increasing line numbers.
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "cli/pair_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::istringstream in(input);
  geoalign::cli::PairReader reader(in, "fuzz input");
  std::variant<geoalign::cli::PairRow, geoalign::cli::BadRow> row;
  std::size_t last = 0;
  while (reader.next(row)) {
    const std::size_t line = std::visit([](const auto& r) { return r.line; }, row);
    if (line <= last) std::abort();
    last = line;
  }
  return 0;
}
