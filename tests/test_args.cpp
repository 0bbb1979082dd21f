#include <gtest/gtest.h>

#include "cli/args.h"

namespace geoalign::cli {
namespace {

Args parsed(std::vector<std::string> words) {
  Args args("bench", {{"sizes", true, "", "1,8"}, {"verbose", false, "", ""}}, "");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  args.parse(static_cast<int>(argv.size()), argv.data(), 0);
  return args;
}

TEST(Args, ListSplitsAtCommasAndKeepsTheDefault) {
  EXPECT_EQ(parsed({}).list("sizes"), (std::vector<std::string>{"1", "8"}));
  EXPECT_EQ(parsed({"--sizes", "64"}).list("sizes"), (std::vector<std::string>{"64"}));
  EXPECT_EQ(parsed({"--sizes=a,b,c"}).list("sizes"), (std::vector<std::string>{"a", "b", "c"}));
}

// A repeatable option (serve --api-key) keeps every value in order; value() is the last.
TEST(Args, AllKeepsEveryValueOfARepeatedOption) {
  const auto args = parsed({"--sizes", "a", "--verbose", "--sizes=b,c", "--sizes", "d"});
  EXPECT_EQ(args.all("sizes"), (std::vector<std::string>{"a", "b,c", "d"}));
  EXPECT_EQ(args.value("sizes"), "d");
  EXPECT_TRUE(parsed({}).all("sizes").empty());
  EXPECT_THROW(parsed({}).all("nosuch"), UsageError);
}

// bench takes no file: `bench pairs.tsv` must not run on the built-in pairs as if asked to.
TEST(Args, AWordBesidesOptionsIsRefusedWhereTheCommandTakesNone) {
  try {
    parsed({"--sizes", "8", "pairs.tsv"});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("got \"pairs.tsv\""), std::string::npos) << e.what();
  }
  EXPECT_TRUE(parsed({"-h"}).flag("help"));
  Args with_file("score", {}, "[FILE|-]");
  std::string word = "pairs.tsv";
  char* argv[] = {word.data()};
  with_file.parse(1, argv, 0);
  EXPECT_EQ(with_file.positional(), std::vector<std::string>{"pairs.tsv"});
}

TEST(Args, ListRejectsEmptyItemsNamingTheOption) {
  for (const char* bad : {"", "1,,4", "1,4,", ",1"}) {
    try {
      parsed({"--sizes", bad}).list("sizes");
      FAIL() << "accepted \"" << bad << "\"";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--sizes has an empty item in \"") + bad + "\"");
    }
  }
}

TEST(Args, RealReadsWholeNumbersAndRejectsTextOutOfRangeOrTrailing) {
  EXPECT_EQ(parsed({"--sizes", "0.25"}).real("sizes", 0.0, 1.0), 0.25);
  EXPECT_EQ(parsed({"--sizes", "1"}).real("sizes", 0.0, 1.0), 1.0);
  EXPECT_EQ(parsed({"--sizes", "1e-3"}).real("sizes", 0.0, 1.0), 1e-3);
  for (const char* bad : {"", "x", "0.5x", "1.5", "-0.1", "nan"}) {
    try {
      parsed({"--sizes", bad}).real("sizes", 0.0, 1.0);
      FAIL() << "accepted \"" << bad << "\"";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--sizes must be a number from 0 to 1, got \"") + bad + "\"");
    }
  }
}

}  // namespace
}  // namespace geoalign::cli
