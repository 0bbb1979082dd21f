#include "cli/address_reader.h"

#include <cstdio>
#include <unordered_map>

#include "cli/args.h"
#include "cli/input_file.h"
#include "cli/line_reader.h"
#include "geoalign/error.h"

namespace geoalign::cli {

void check_on_error(const std::string& on_error) {
  if (on_error != "fail" && on_error != "skip") throw UsageError("--on-error must be fail or skip");
}

std::vector<AddressRow> read_address_file(const std::string& path, const std::string& on_error, const char* command) {
  InputFile file(path);
  LineReader reader(file.stream(), file.name());
  std::vector<AddressRow> rows;
  std::unordered_map<std::string, std::size_t> id_lines;
  std::size_t skipped = 0;
  InputLine line;
  while (reader.next(line)) {
    std::string problem = line.problem;
    AddressRow row{line.number, {}, {}};
    if (problem.empty()) {
      const auto tab = line.text.find('\t');
      if (tab == std::string::npos) {
        row.text = line.text;
      } else if (line.text.find('\t', tab + 1) != std::string::npos) {
        problem = "more than two columns (expected address or id<TAB>address)";
      } else {
        row.id = line.text.substr(0, tab);
        row.text = line.text.substr(tab + 1);
        if (line.number == 1 && row.id == "id" && row.text == "address") continue;
        if (row.id.empty()) problem = "empty id";
      }
    }
    if (problem.empty() && row.text.find_first_not_of(" \t\r") == std::string::npos) problem = "empty address";
    if (problem.empty() && !row.id.empty()) {
      const auto [it, fresh] = id_lines.emplace(row.id, line.number);
      if (!fresh) problem = "id \"" + row.id + "\" already used on line " + std::to_string(it->second);
    }
    if (problem.empty()) {
      rows.push_back(std::move(row));
      continue;
    }
    std::fprintf(stderr, "%s:%zu: %s\n", file.name().c_str(), line.number, problem.c_str());
    if (on_error == "fail") {
      throw Error(std::string(command) + " stopped at " + file.name() + " line " + std::to_string(line.number) +
                  " (use --on-error skip to go on)");
    }
    ++skipped;
  }
  if (skipped > 0) std::fprintf(stderr, "geoalign %s: %zu bad lines of %s skipped\n", command, skipped, file.name().c_str());
  return rows;
}

}  // namespace geoalign::cli
