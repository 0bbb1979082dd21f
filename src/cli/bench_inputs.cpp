#include "cli/bench_inputs.h"

#include <cstdio>
#include <fstream>

#include "cli/pair_reader.h"
#include "common/open_file.h"

namespace geoalign::cli {

std::vector<AddressPair> read_valid_pairs(const std::string& path) {
  std::ifstream in = open_for_reading(path, "--input");
  PairReader reader(in, path);
  std::vector<AddressPair> pairs;
  std::size_t bad = 0;
  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) {
    if (auto* pair = std::get_if<PairRow>(&row)) {
      pairs.push_back({std::move(pair->a), std::move(pair->b)});
    } else {
      const auto& b = std::get<BadRow>(row);
      std::fprintf(stderr, "%s:%zu: %s\n", path.c_str(), b.line, b.reason.c_str());
      ++bad;
    }
  }
  if (bad > 0) std::fprintf(stderr, "%s: %zu bad rows left out\n", path.c_str(), bad);
  if (pairs.empty()) throw Error(path + " holds no valid pairs");
  return pairs;
}

}  // namespace geoalign::cli
