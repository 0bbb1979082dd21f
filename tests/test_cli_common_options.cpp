// The options most commands share (--threads, --on-error, --precision, --batch-size) are
// declared once: every command checks them the same way and describes them in the same
// words.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_run.h"

namespace geoalign::testing {
namespace {

// The line of a command's --help that describes `option`.
std::string help_line(const std::string& command, const std::string& option) {
  const auto help = run_cli(command + " --help");
  EXPECT_EQ(help.exit_code, 0) << command << ": " << help.err;
  for (const auto& line : lines(help.out)) {
    if (line.find("--" + option + " ") != std::string::npos) return line;
  }
  ADD_FAILURE() << command << " --help does not list --" << option << ":\n" << help.out;
  return {};
}

TEST(CliCommonOptions, EveryCommandRefusesTheSameBadValuesAsUsage) {
  // Each with what it requires, naming nothing that exists: the options are checked first.
  const std::vector<std::string> with_threads = {"score",
                                                 "eval --data /nonexistent/pairs.tsv",
                                                 "search --index /nonexistent/index",
                                                 "dedup --input /nonexistent/addresses.txt",
                                                 "index build --input /nonexistent/addresses.txt --out /nonexistent/index",
                                                 "profile",
                                                 "bench",
                                                 "serve"};
  for (const auto& command : with_threads) {
    const auto r = run_cli(command + " --threads 1025");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("--threads"), std::string::npos) << command << ": " << r.err;
  }
  for (const auto& command : {with_threads[0], with_threads[2], with_threads[3], with_threads[4]}) {
    const auto r = run_cli(command + " --on-error ignore");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("--on-error must be fail or skip"), std::string::npos) << command << ": " << r.err;
  }
  for (const auto& command : {with_threads[0], with_threads[1], with_threads[5]}) {
    const auto r = run_cli(command + " --batch-size 0");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("--batch-size"), std::string::npos) << command << ": " << r.err;
  }
}

TEST(CliCommonOptions, EveryCommandDescribesThemInTheSameWords) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> shared = {
      {"threads", {"score", "eval", "search", "dedup", "index build", "profile", "bench"}},
      {"on-error", {"score", "search", "dedup", "index build"}},
      {"precision", {"score", "eval", "search", "dedup", "profile", "serve"}},
      {"batch-size", {"score", "eval", "profile"}},
      {"head", {"search", "dedup"}},
  };
  for (const auto& [option, commands] : shared) {
    const std::string first = help_line(commands.front(), option);
    for (const auto& command : commands) EXPECT_EQ(help_line(command, option), first) << command << " --" << option;
  }
}

}  // namespace
}  // namespace geoalign::testing
