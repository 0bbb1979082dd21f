// `geoalign parse` end to end: one JSON line per input line, and --eval; and
// `geoalign term-weights` and `geoalign features`, which read their input the same way.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;

std::string shipped_parser() { return (source_dir() / "models/default/parser").string(); }

TEST(CliParse, OneOutputLinePerInputLineAndErrorsInPlace) {
  const std::string long_line(30000, 'a'), too_long(70000, 'b');
  const auto r = run_cli("parse --model " + shipped_parser(),
                         "杭州市西湖区文三路90号\n\xff\xfe\n\n" + long_line + "\n北京朝阳\n" + too_long + "\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  EXPECT_EQ(nlohmann::json::parse(out[5])["error"], "the address is 70000 characters long; the parser reads at most 65536");
  const auto first = nlohmann::json::parse(out[0]);
  EXPECT_EQ(first["admin"]["city"], "杭州市");
  EXPECT_EQ(first["elements"][0]["start"], 0);
  const auto bad = nlohmann::json::parse(out[1]);
  EXPECT_EQ(bad["line"], 2);
  EXPECT_NE(bad["error"].get<std::string>().find("invalid UTF-8"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(out[2])["elements"].empty());
  EXPECT_EQ(nlohmann::json::parse(out[3])["text"].get<std::string>().size(), long_line.size());
  EXPECT_EQ(nlohmann::json::parse(out[4])["admin"]["district"], "朝阳区");
  EXPECT_NE(r.err.find("<stdin>:2: invalid UTF-8"), std::string::npos) << r.err;
}

// Invisible characters and blanks beside Chinese characters are dropped before parsing,
// as the models do, unless --no-normalize asks for the text as it is.
TEST(CliParse, NoisyTextParsesLikeCleanText) {
  const std::string clean = "杭州市西湖区文三路478号华星科技大厦";
  const std::string noisy = " \uFEFF杭\u200B州市\u00A0西湖区 文三路\u3000478号华星科技大厦\u200B ";
  const auto r = run_cli("parse --model " + shipped_parser(), clean + "\n" + noisy + "\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 2u) << r.out;
  EXPECT_EQ(out[1], out[0]);
  EXPECT_EQ(nlohmann::json::parse(out[1])["admin"]["adcode"], "330106");
  const auto raw = run_cli("parse --no-normalize --model " + shipped_parser(), noisy + "\n");
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(nlohmann::json::parse(raw.out)["text"], noisy);
}

TEST(CliParse, EvalScoresSpans) {
  TempDir dir;
  write_file(dir / "tagged.txt", "杭 B-city\n州 I-city\n市 I-city\n文 B-road\n三 I-road\n路 I-road\n90 B-roadno\n号 I-roadno\n\n");
  const auto r = run_cli("parse --model " + shipped_parser() + " --json --eval " + (dir / "tagged.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["addresses"], 1);
  EXPECT_EQ(report["overall"]["gold"], 3);
  EXPECT_EQ(report["tags"]["city"]["correct"], 1);
  EXPECT_GT(report["tagger_alone_f1"].get<double>(), 0.0);
}

// --eval scores the elements parse reports, the rules after the tagger included: 中国 first
// is the country, which the tagger alone, never shown one first, need not find.
TEST(CliParse, EvalScoresTheElementsParseReports) {
  TempDir dir;
  write_file(dir / "tagged.txt",
             "中 B-country\n国 I-country\n北 B-city\n京 I-city\n市 I-city\n朝 B-district\n阳 I-district\n区 I-district\n\n");
  const auto r = run_cli("parse --model " + shipped_parser() + " --json --eval " + (dir / "tagged.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["tags"]["country"]["correct"], 1) << r.out;
  EXPECT_EQ(report["overall"]["correct"], 3) << r.out;
}

TEST(CliParse, MissingModelFolderIsAClearError) {
  const auto r = run_cli("parse --model /nonexistent/parser", "杭州\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/parser does not exist"), std::string::npos) << r.err;
}

TEST(CliParse, OptionsThatWouldBeIgnoredAreUsageErrors) {
  EXPECT_EQ(run_cli("parse --json --model " + shipped_parser(), "杭州\n").exit_code, 2);
  EXPECT_EQ(run_cli("parse --eval tagged.txt other.txt").exit_code, 2);
}

// `geoalign term-weights` refuses to write a table no loader accepts, and blank lines are
// not addresses.
TEST(CliTermWeights, CountsAddressesAndRefusesAnEmptyInput) {
  const auto r = run_cli("term-weights", "北京\n  \n\n北京市\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.out)[0], "documents\t2");
  const auto empty = run_cli("term-weights", " \n\n");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("<stdin> holds no addresses"), std::string::npos) << empty.err;
}

// `geoalign features` runs the scorer's own pipeline: a noisy pair gives the clean pair's
// row (the head is trained on what `score` computes), the label column is carried over,
// and a folder without a match head takes its parser and term weights from options. The
// shipped match head reads pairs in canonical order, so its rows end with order_swapped,
// and reads no encoder, so they have no encoder_p* columns (a folder without a head has
// them, unless --without-encoder).
TEST(CliFeatures, RowsComeFromTheScorersPipeline) {
  const std::string model = (source_dir() / "models/default").string();
  const std::string clean = "杭州市西湖区文三路478号华星科技大厦\t文三路478号华星大厦\t2\n";
  const std::string noisy = " 杭州市西湖区\u3000文三路478号华星科技大厦\t\u200B文三路 478号华星大厦\t2\n";
  const auto r = run_cli("features --model " + model, clean + noisy);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_TRUE(out[0].starts_with("line\t")) << out[0];
  EXPECT_TRUE(out[0].ends_with("\tdigits_only_in_a\torder_swapped\trest")) << out[0];
  EXPECT_TRUE(out[1].ends_with("\t1\t2")) << out[1];  // the shorter address was given second
  EXPECT_EQ(out[1].substr(out[1].find('\t')), out[2].substr(out[2].find('\t')));
  EXPECT_TRUE(out[1].ends_with("\t2")) << out[1];

  TempDir dir;
  for (const char* f : {"config.json", "vocab.txt", "model.safetensors", "tokenizer_config.json"}) {
    std::filesystem::copy_file(source_dir() / "models/default" / f, dir / f);
  }
  const std::string elsewhere = " --parser " + (source_dir() / "models/default/parser").string() + " --term-weights " +
                                (source_dir() / "models/default/term_weights.tsv").string();
  const auto headless =
      run_cli("features --order canonical --without-encoder --model " + dir.path().string() + elsewhere, clean);
  ASSERT_EQ(headless.exit_code, 0) << headless.err;
  EXPECT_EQ(lines(headless.out)[1], out[1]);
  const auto with_encoder = run_cli("features --order canonical --model " + dir.path().string() + elsewhere, clean);
  ASSERT_EQ(with_encoder.exit_code, 0) << with_encoder.err;
  EXPECT_TRUE(lines(with_encoder.out)[0].ends_with("\tencoder_p0\tencoder_p1\tencoder_p2\torder_swapped\trest"))
      << lines(with_encoder.out)[0];
  // As given, the row is the same pair read the other way: another row, without the column.
  const auto given = run_cli("features --order given --model " + model, clean);
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_TRUE(lines(given.out)[0].ends_with("\tdigits_only_in_a\trest")) << lines(given.out)[0];
  EXPECT_NE(lines(given.out)[1], out[1]);
  EXPECT_EQ(run_cli("features --order sorted --model " + model, clean).exit_code, 2);
  const auto missing = run_cli("features --model " + dir.path().string(), clean);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find(dir.path().string()), std::string::npos) << missing.err;  // names what is missing
}

}  // namespace
}  // namespace geoalign
