#pragma once

#include <string>
#include <vector>

namespace geoalign::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs the geoalign binary with `args` (already shell-quoted), feeding `input` on stdin;
// standard output goes to `stdout_path` where one is given (out is then empty).
CliResult run_cli(const std::string& args, const std::string& input = "", const std::string& stdout_path = "");

std::vector<std::string> lines(const std::string& s);
// The tab-separated cells of one line of a TSV output.
std::vector<std::string> split_tabs(const std::string& line);

}  // namespace geoalign::testing
