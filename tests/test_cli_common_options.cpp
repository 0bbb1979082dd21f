// The options most commands share (--threads, --on-error, --precision, --batch-size) are
// declared once: every command checks them the same way and describes them in the same
// words.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_run.h"
#include "support/temp_dir.h"

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

// Without --model a command finds the bundled model wherever it is run from (the tests
// run in the build folder, where no models/default is), and `version` says which.
TEST(CliModelFolder, FoundWithoutModelFromAnotherFolderAndNamedByVersion) {
  ASSERT_FALSE(std::filesystem::exists("models/default"));
  const auto scored = run_cli("score", "北京市朝阳区建国路88号\t北京朝阳建国路88号\n");
  ASSERT_EQ(scored.exit_code, 0) << scored.err;
  EXPECT_NE(scored.out.find("\texact_match\t"), std::string::npos) << scored.out;

  for (const std::string command : {"version", "--version"}) {
    const auto v = run_cli(command);
    ASSERT_EQ(v.exit_code, 0) << v.err;
    const auto out = lines(v.out);
    ASSERT_EQ(out.size(), 3u) << v.out;
    EXPECT_EQ(out[0].rfind("geoalign version 0.", 0), 0u) << out[0];
    EXPECT_NE(out[0].find("(commit "), std::string::npos) << out[0];
    const std::string model = std::filesystem::canonical(source_dir() / "models/default").string();
    EXPECT_EQ(out[1].rfind("model: " + model + " (checksum ", 0), 0u) << out[1];
    EXPECT_EQ(out[2].rfind("cpu: ", 0), 0u) << out[2];
  }
}

TEST(CliModelFolder, AMissingFolderIsNamedWithTheFolderItIsRelativeTo) {
  const auto r = run_cli("score --model no/such/model", "a\tb\n");
  EXPECT_EQ(r.exit_code, 1);
  const std::string here = std::filesystem::current_path().string();
  EXPECT_NE(r.err.find("model folder no/such/model (relative to the current directory, " + here + ") does not exist"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace geoalign::testing
