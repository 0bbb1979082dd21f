#include "support/cli_run.h"

#include <sys/wait.h>

#include <cstdlib>
#include <sstream>

#include "support/temp_dir.h"

namespace geoalign::testing {

CliResult run_cli(const std::string& args, const std::string& input, const std::string& stdout_path) {
  TempDir dir;
  write_file(dir / "stdin", input);
  write_file(dir / "out", "");
  const std::string command = std::string(GEOALIGN_CLI) + " " + args + " <" + (dir / "stdin").string() + " >" +
                              (stdout_path.empty() ? (dir / "out").string() : stdout_path) + " 2>" +
                              (dir / "err").string();
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir / "out"), read_file(dir / "err")};
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
    out.push_back(line.substr(start, tab - start));
  }
  out.push_back(line.substr(start));
  return out;
}

}  // namespace geoalign::testing
