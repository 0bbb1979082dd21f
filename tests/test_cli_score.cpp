// `geoalign score` end to end, as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "support/cli_run.h"
#include "support/gpu.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;

CliResult run_score(const std::string& args, const std::string& input) {
  TempDir dir;
  write_file(dir / "in.tsv", input);
  return run_cli("score --model " + fixture_model().string() + " " + args + " " + (dir / "in.tsv").string());
}

constexpr const char* kHeader = "addr1\taddr2\tlabel\tscore\tp_not_match\tp_partial_match\tp_exact_match";

TEST(CliScore, OneRowPerPairInInputOrder) {
  const auto r = run_score("--batch-size 2", "addr1\taddr2\n北京市朝阳区建国路88号\t北京朝阳建外88号\n上海\t广州\t2\n杭州\t杭州市\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], kHeader);
  EXPECT_EQ(out[1].rfind("北京市朝阳区建国路88号\t北京朝阳建外88号\t", 0), 0u);
  EXPECT_EQ(out[2].rfind("上海\t广州\t", 0), 0u);
  EXPECT_EQ(out[3].rfind("杭州\t杭州市\t", 0), 0u);
  for (std::size_t i = 1; i < out.size(); ++i) {
    std::istringstream fields(out[i]);
    std::vector<std::string> f;
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    ASSERT_EQ(f.size(), 7u);
    const double score = std::stod(f[3]), pn = std::stod(f[4]), pp = std::stod(f[5]), pe = std::stod(f[6]);
    EXPECT_NEAR(pn + pp + pe, 1.0, 1e-5);
    EXPECT_NEAR(score, pe + 0.5 * pp, 1e-5);
  }
}

// --aliases: a user's own name for a place reads as that place, with either head and in
// either order; the engine's same-text rule then makes it certain.
TEST(CliScore, TheUsersAliasesNameOnePlace) {
  TempDir dir;
  write_file(dir / "mine.tsv", "# mine\n西湖银泰\t西湖银泰城购物中心\n");
  write_file(dir / "in.tsv", "杭州西湖银泰\t杭州西湖银泰城购物中心\n杭州西湖银泰城购物中心\t杭州西湖银泰\n");
  const std::string model = (source_dir() / "models/default").string();
  for (const std::string head : {"match", "rerank"}) {
    const std::string command = "score --model " + model + " --head " + head + " " + (dir / "in.tsv").string();
    const auto without = run_cli(command);
    ASSERT_EQ(without.exit_code, 0) << without.err;
    EXPECT_EQ(lines(without.out)[1].find("\texact_match\t1.000000"), std::string::npos) << head;
    const auto with = run_cli(command + " --aliases " + (dir / "mine.tsv").string());
    ASSERT_EQ(with.exit_code, 0) << with.err;
    for (std::size_t row : {1, 2}) {
      EXPECT_NE(lines(with.out)[row].find("\texact_match\t1.000000"), std::string::npos) << head << lines(with.out)[row];
    }
  }
  write_file(dir / "bad.tsv", "西湖银泰\t西湖银泰城购物中心\n西湖\n");
  const auto bad = run_cli("score --model " + model + " --aliases " + (dir / "bad.tsv").string() + " " +
                           (dir / "in.tsv").string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find((dir / "bad.tsv").string() + ":2"), std::string::npos) << bad.err;
}

TEST(CliScore, BadRowsStopTheRunByDefault) {
  const auto r = run_score("", "北京\t上海\n没有制表符\n杭州\t宁波\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(":2: no tab"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.out).size(), 2u);  // header and the row before the bad one
}

// Bytes without a line end, for ever: an error, not a run until killed (even with skip).
TEST(CliScore, AnInputThatNeverEndsItsLineIsAnError) {
  const auto r = run_cli("score --on-error skip --model " + fixture_model().string() + " /dev/zero");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 1 of /dev/zero runs past 64 MiB without a line end"), std::string::npos) << r.err;
}

TEST(CliScore, SkipReportsEveryBadRowAndScoresTheRest) {
  const auto r = run_score("--on-error skip", "北京\t上海\n没有制表符\n\n杭州\t\n\xFF\xFE\t宁波\n杭州\t宁波\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {":2: no tab", ":3: empty line", ":4: addr2 is empty", ":5: invalid UTF-8"}) {
    EXPECT_NE(r.err.find(want), std::string::npos) << want << " in " << r.err;
  }
  EXPECT_NE(r.err.find("2 pairs scored, 4 bad rows skipped"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.out).size(), 3u);
}

TEST(CliScore, LongAddressesAreTruncatedNotRejected) {
  std::string long_address;
  for (int i = 0; i < 2000; ++i) long_address += "中山路";
  const auto r = run_score("", long_address + "\t中山路1号\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.out).size(), 2u);
}

TEST(CliScore, UsageErrors) {
  EXPECT_EQ(run_score("--batch-size 0", "a\tb\n").exit_code, 2);
  EXPECT_EQ(run_score("--on-error maybe", "a\tb\n").exit_code, 2);
  EXPECT_EQ(run_score("--frobnicate", "a\tb\n").exit_code, 2);
  const auto r = run_score("--precision fp16", "a\tb\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--precision: unknown precision \"fp16\" (fp32, bf16, int8, auto)"), std::string::npos) << r.err;
  EXPECT_EQ(run_score("--device gpu", "a\tb\n").exit_code, 2);
}

// A file that cannot be read is named with the system's reason.
TEST(CliScore, AnInputThatCannotBeOpenedSaysWhy) {
  const auto missing = run_cli("score --model " + (source_dir() / "models/default").string() + " /nonexistent/pairs.tsv");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open /nonexistent/pairs.tsv: No such file or directory"), std::string::npos)
      << missing.err;
  const auto folder = run_cli("eval --data /tmp");
  EXPECT_EQ(folder.exit_code, 1);
  EXPECT_NE(folder.err.find("cannot open --data /tmp: Is a directory"), std::string::npos) << folder.err;
}

// --device cuda never falls back to the CPU: without a usable GPU (or without the CUDA
// backend in this build) the run stops, saying why, and scores nothing.
TEST(CliScore, AGpuThatCannotBeUsedIsAnErrorNotAFallBack) {
  const std::string why = gpu_refusal();
  if (why.empty()) GTEST_SKIP() << "this machine has a usable GPU";
  const auto r = run_score("--device cuda", "a\tb\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  const auto other = run_score("--device cuda:1", "a\tb\n");
  EXPECT_NE(other.err.find("only the first GPU"), std::string::npos) << other.err;
  const auto unknown = run_score("--device gpu", "a\tb\n");
  EXPECT_NE(unknown.err.find("unknown device \"gpu\" (expected cpu, cuda or cuda:0)"), std::string::npos) << unknown.err;
  const auto rerank = run_score("--head rerank --device cuda", "a\tb\n");
  EXPECT_EQ(rerank.exit_code, 2) << rerank.err;
}

TEST(CliScore, BadModelFolderIsNamed) {
  TempDir dir;
  const std::string command = std::string(GEOALIGN_CLI) + " score --model " + (dir / "none").string() +
                              " </dev/null 2>" + (dir / "err").string();
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 1);
  EXPECT_NE(read_file(dir / "err").find("does not exist"), std::string::npos);
}

}  // namespace
}  // namespace geoalign

namespace geoalign {
namespace {

TEST(CliEval, ReportsModelAndBaselineSideBySide) {
  TempDir dir;
  write_file(dir / "labelled.tsv",
             "addr1\taddr2\tlabel\n北京市朝阳区建国路88号\t北京朝阳建国路88号\t2\n杭州\t广州\tnot_match\n"
             "文三路478号\t文三路478号华星大厦\t部分匹配\n坏行\n上海\t上海\t7\n");
  const std::string base = std::string(GEOALIGN_CLI) + " eval --model " + fixture_model().string() + " --data " +
                           (dir / "labelled.tsv").string();
  ASSERT_EQ(WEXITSTATUS(std::system((base + " >" + (dir / "out").string() + " 2>" + (dir / "err").string()).c_str())), 0);
  const std::string out = read_file(dir / "out"), err = read_file(dir / "err");
  EXPECT_NE(out.find("3 labelled pairs"), std::string::npos) << out;
  EXPECT_NE(out.find("2 skipped"), std::string::npos) << out;
  EXPECT_NE(out.find("macro-F1"), std::string::npos);
  EXPECT_NE(out.find("LCS baseline"), std::string::npos);
  EXPECT_NE(err.find(":5: no tab"), std::string::npos) << err;
  EXPECT_NE(err.find(":6: unreadable label \"7\""), std::string::npos) << err;
  ASSERT_EQ(WEXITSTATUS(std::system((base + " --json >" + (dir / "json").string() + " 2>/dev/null").c_str())), 0);
  const auto json = read_file(dir / "json");
  EXPECT_NE(json.find("\"lcs_baseline\""), std::string::npos);
  EXPECT_NE(json.find("\"confusion\""), std::string::npos);
  EXPECT_EQ(err.find("--binary"), std::string::npos) << "no hint for a file with exact matches";
}

TEST(CliEval, SamePlaceLabelsWithoutBinaryGetAHint) {
  TempDir dir;
  write_file(dir / "same_place.tsv", "北京市朝阳区建国路88号\t北京朝阳建国路88号\t1\n杭州\t广州\t0\n");
  const std::string base = std::string(GEOALIGN_CLI) + " eval --model " + fixture_model().string() + " --data " +
                           (dir / "same_place.tsv").string() + " >/dev/null 2>" + (dir / "err").string();
  ASSERT_EQ(WEXITSTATUS(std::system(base.c_str())), 0);
  EXPECT_NE(read_file(dir / "err").find("run with --binary"), std::string::npos) << read_file(dir / "err");
  ASSERT_EQ(WEXITSTATUS(std::system((base + " --binary").c_str())), 0);
}

}  // namespace
}  // namespace geoalign

namespace geoalign {
namespace {

using namespace geoalign::testing;

// Option values that would hang a run, print figures of nothing, or be ignored are usage
// errors (exit status 2) that name the option, before any work.
TEST(CliOptions, ValuesOutOfRangeAndStrayWordsAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"loadtest --rate 1e99", "--rate must be"},
      {"loadtest --rate nan", "--rate must be"},
      {"loadtest --concurrency 1.5", "--concurrency must be whole numbers"},
      {"loadtest --concurrency 0", "--concurrency must be"},
      {"loadtest --duration 1e16", "--duration must look like"},
      {"loadtest --warmup nan", "--warmup must look like"},
      {"loadtest --duration 1.0005s", "--duration must look like"},
      {"eval --data x.tsv --lcs-thresholds nan,nan", "--lcs-thresholds must be"},
      {"eval --data x.tsv --lcs-thresholds 0.3,0.5,0.9", "--lcs-thresholds must be"},
      {"profile pairs.tsv", "got \"pairs.tsv\""},
      {"loadtest http://127.0.0.1:1/v1/match", "got \"http://127.0.0.1:1/v1/match\""},
      {"serve --port 0 --precision fp64", "--precision: unknown precision \"fp64\""},
      {"serve --port 0 --device gpu", "--device: unknown device \"gpu\""},
      {"bench --precision fp32,fp64", "--precision: unknown precision \"fp64\""},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

// A full disk must not pass for success: the run stops with the reason, exit status 1.
TEST(CliScore, AFailedWriteToStandardOutputIsAnError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  TempDir dir;
  write_file(dir / "in.tsv", "北京市朝阳区建国路88号\t北京朝阳建国路88号\n");
  const auto score = run_cli("score --model " + fixture_model().string() + " " + (dir / "in.tsv").string(), "", "/dev/full");
  EXPECT_EQ(score.exit_code, 1);
  EXPECT_NE(score.err.find("standard output: write failed"), std::string::npos) << score.err;
  const auto parse = run_cli("parse --model " + (source_dir() / "models/default/parser").string(), "北京\n", "/dev/full");
  EXPECT_EQ(parse.exit_code, 1);
  EXPECT_NE(parse.err.find("standard output: write failed"), std::string::npos) << parse.err;
}

// oneDNN and geoalign's own kernels pick their code by CPU; capped at SSE4.1 (and the
// baseline attention kernel) they must give the answers the best kernels here give, for
// every precision. Capped, bf16 takes its fallback (fp32 arithmetic on bf16 weights) and
// int8 its 7-bit weights, so those two are compared within their rounding.
TEST(CliScore, EveryOneDnnIsaAgrees) {
  TempDir dir;
  write_file(dir / "in.tsv", "北京市朝阳区建国路88号\t北京朝阳建国路88号\n上海\t广州\n杭州市西湖区文三路90号\t文三路90号\n");
  const std::pair<const char*, double> precisions[] = {{"fp32", 1e-3}, {"bf16", 2e-2}, {"int8", 5e-2}};
  for (const auto& [precision, tolerance] : precisions) {
    const std::string args = std::string("score --precision ") + precision + " --model " + fixture_model().string() +
                             " " + (dir / "in.tsv").string();
    const auto best = run_cli(args);
    ASSERT_EQ(best.exit_code, 0) << best.err;
    setenv("ONEDNN_MAX_CPU_ISA", "SSE41", 1);
    setenv("GEOALIGN_MAX_ISA", "baseline", 1);
    const auto sse = run_cli(args);
    unsetenv("ONEDNN_MAX_CPU_ISA");
    unsetenv("GEOALIGN_MAX_ISA");
    ASSERT_EQ(sse.exit_code, 0) << sse.err;
    const auto a = lines(best.out), b = lines(sse.out);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 1; i < a.size(); ++i) {
      std::istringstream fa(a[i]), fb(b[i]);
      std::vector<std::string> x, y;
      for (std::string f; std::getline(fa, f, '\t');) x.push_back(f);
      for (std::string f; std::getline(fb, f, '\t');) y.push_back(f);
      EXPECT_EQ(x[2], y[2]) << precision << " row " << i;
      for (std::size_t k = 3; k < 7; ++k) EXPECT_NEAR(std::stod(x[k]), std::stod(y[k]), tolerance) << precision << " row " << i;
    }
  }
}

}  // namespace
}  // namespace geoalign
