// geoalign link: each address of one table matched to the places of another.
#include <gtest/gtest.h>

#include "link/link_evaluation.h"
#include "link/linker.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace geoalign::link {
namespace {

using namespace geoalign::testing;

LinkMatch match(std::uint32_t record, float p_exact) {
  MatchResult m;
  m.p_exact_match = p_exact;
  return {record, m};
}

std::vector<std::vector<std::uint32_t>> records_of(const std::vector<std::vector<LinkMatch>>& matches) {
  std::vector<std::vector<std::uint32_t>> out;
  for (const auto& found : matches) {
    out.emplace_back();
    for (const auto& m : found) out.back().push_back(m.record);
  }
  return out;
}

// Worked by hand: record 7 is left 1's at 0.9 (left 0 wants it at 0.8 and falls back to
// record 3 at 0.5); left 2's only match, 7, is taken, so it has none; left 3 ties left 4 on
// record 5 and the earlier left row wins.
TEST(LinkOneToOne, TakesThePairsGreedilyByPExact) {
  const std::vector<std::vector<LinkMatch>> matches = {
      {match(7, 0.8f), match(3, 0.5f)}, {match(7, 0.9f)}, {match(7, 0.4f)}, {match(5, 0.6f)}, {match(5, 0.6f), match(9, 0.1f)}};
  EXPECT_EQ(records_of(one_to_one(matches)),
            (std::vector<std::vector<std::uint32_t>>{{3}, {7}, {}, {5}, {9}}));
  EXPECT_TRUE(one_to_one({}).empty());
}

// Worked by hand: left "a" links to "A" (a labelled match) then "B" (a labelled
// non-match); left "b" links to "X" (unlabelled) while its labelled match "C" is missed;
// left "c" has no labelled pair; one labelled pair names an address in neither table.
TEST(LinkEvaluation, CountsLabelledPairsAndTheBestLink) {
  const std::vector<std::vector<ProposedLink>> links = {{{"a", "A", 0.9f}, {"a", "B", 0.3f}}, {{"b", "X", 0.8f}}, {}};
  const std::vector<std::string> left = {"a", "b", "c"}, right = {"A", "B", "C", "X"};
  const std::vector<dedup::LabelledPair> labels = {
      {"a", "A", true}, {"B", "a", false}, {"b", "C", true}, {"c", "nowhere", true}};
  const auto e = evaluate_links(links, left, right, labels);
  EXPECT_EQ(e.pairs.true_positives, 1u);   // a-A
  EXPECT_EQ(e.pairs.false_positives, 1u);  // a-B, labelled the other way round
  EXPECT_EQ(e.pairs.false_negatives, 1u);  // b-C
  EXPECT_EQ(e.pairs.not_in_input, 1u);
  EXPECT_EQ(e.with_a_match, 2u);  // a and b
  EXPECT_EQ(e.best_is_a_match, 1u);
  EXPECT_DOUBLE_EQ(e.top1_accuracy(), 0.5);
  // At P(exact) >= 0.5 the link a-B no longer counts: no false positive.
  const auto strict = evaluate_links(links, left, right, labels, 0.5f);
  EXPECT_EQ(strict.pairs.false_positives, 0u);
  EXPECT_EQ(strict.pairs.true_positives, 1u);
  const float grid[] = {0.2f, 0.5f, 0.95f};
  const auto curve = link_curve(links, left, right, labels, grid);
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_EQ(curve[0].scores.false_positives, 1u);
  EXPECT_EQ(curve[1].scores.false_positives, 0u);
  EXPECT_EQ(curve[2].scores.true_positives, 0u);  // no link reaches 0.95
}

const std::string kRight =
    "r1\t浙江省杭州市西湖区文三路478号华星科技大厦\n"
    "r2\t北京市朝阳区建国路88号SOHO现代城\n"
    "r3\t上海市浦东新区世纪大道100号环球金融中心\n"
    "r4\t深圳市南山区科技园南区深圳湾科技生态园\n"
    "r5\t杭州市西湖区文二路100号\n";
// a, b, d name r1, r2, r3 another way; c names a place the right table lacks.
const std::string kLeft =
    "a\t杭州文三路478号华星科技大厦\n"
    "b\t北京朝阳建国路88号现代城\n"
    "c\t广州市天河区体育西路191号中石化大厦\n"
    "d\t上海浦东世纪大道100号上海环球金融中心\n";

std::string model_option() { return " --model " + (source_dir() / "models/default").string(); }

TEST(CliLink, EachLeftRowGetsItsPlaceOrAnEmptyRow) {
  TempDir dir;
  write_file(dir / "left.tsv", kLeft);
  write_file(dir / "right.tsv", kRight);
  const std::string tables = " --left " + (dir / "left.tsv").string() + " --right " + (dir / "right.tsv").string();
  const auto r = run_cli("link" + model_option() + tables);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 5u) << r.out;
  EXPECT_EQ(out[0], "left_id\tleft_address\tright_id\tright_address\tlabel\tscore\tp_not_match\tp_partial_match\tp_exact_match");
  const std::vector<std::pair<std::string, std::string>> want = {{"a", "r1"}, {"b", "r2"}, {"c", ""}, {"d", "r3"}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto cells = split_tabs(out[i + 1]);
    ASSERT_EQ(cells.size(), 9u) << out[i + 1];
    EXPECT_EQ(cells[0], want[i].first);
    EXPECT_EQ(cells[2], want[i].second) << out[i + 1];
    if (!want[i].second.empty()) EXPECT_EQ(cells[4], "exact_match") << out[i + 1];
  }
  EXPECT_NE(r.err.find("3 linked, 1 without a match"), std::string::npos) << r.err;

  // The same pair scored by `score --head rerank` gives the same numbers.
  const auto a = split_tabs(out[1]);
  const auto scored = run_cli("score --head rerank" + model_option(), a[1] + "\t" + a[3] + "\n");
  ASSERT_EQ(scored.exit_code, 0) << scored.err;
  const auto s = split_tabs(lines(scored.out)[1]);
  EXPECT_EQ(std::vector(a.begin() + 4, a.end()), std::vector(s.begin() + 2, s.end()));

  // --k 3: ranks, best first; the unmatched row keeps its one empty row with an empty rank.
  const auto k3 = run_cli("link --k 3" + model_option() + tables);
  ASSERT_EQ(k3.exit_code, 0) << k3.err;
  const auto ranked = lines(k3.out);
  EXPECT_TRUE(ranked[0].ends_with("\tp_exact_match\trank")) << ranked[0];
  for (std::size_t i = 1; i < ranked.size(); ++i) {
    const auto cells = split_tabs(ranked[i]);
    ASSERT_EQ(cells.size(), 10u) << ranked[i];
    if (cells[0] == "c") EXPECT_EQ(cells[9], "");
    if (cells[0] != "c" && cells[9] == "1") EXPECT_EQ(cells[2], want[cells[0][0] - 'a'].second);
  }

  // Saved as an index and linked again from it: the same answer.
  const auto saved = run_cli("link --index-out " + (dir / "ix").string() + model_option() + tables);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const auto again = run_cli("link --left " + (dir / "left.tsv").string() + " --right-index " + (dir / "ix").string() +
                             " --out " + (dir / "links.tsv").string());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_file(dir / "links.tsv"), r.out);
}

// Two left rows that name one right row: one-to-one gives it to the surer pair only.
TEST(CliLink, OneToOneGivesEachRightRowOnce) {
  TempDir dir;
  write_file(dir / "left.tsv", "a\t杭州文三路478号华星科技大厦\na2\t浙江杭州西湖区文三路478号华星科技大厦\n");
  write_file(dir / "right.tsv", kRight);
  const std::string tables = " --left " + (dir / "left.tsv").string() + " --right " + (dir / "right.tsv").string();
  const auto many = run_cli("link" + model_option() + tables);
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_EQ(split_tabs(lines(many.out)[1])[2], "r1");
  EXPECT_EQ(split_tabs(lines(many.out)[2])[2], "r1");
  const auto once = run_cli("link --one-to-one" + model_option() + tables);
  ASSERT_EQ(once.exit_code, 0) << once.err;
  const auto a = split_tabs(lines(once.out)[1]), a2 = split_tabs(lines(once.out)[2]);
  EXPECT_EQ((a[2] == "r1") + (a2[2] == "r1"), 1) << once.out;
  // The one that keeps r1 is the pair with the higher P(exact_match) of the two.
  const auto& kept = a[2] == "r1" ? a : a2;
  const auto first = split_tabs(lines(many.out)[1]), second = split_tabs(lines(many.out)[2]);
  EXPECT_EQ(kept[0], std::stof(first[8]) >= std::stof(second[8]) ? "a" : "a2");
}

TEST(CliLink, EvalReportsTopOneAccuracyAndTheCurve) {
  TempDir dir;
  write_file(dir / "left.tsv", kLeft);
  write_file(dir / "right.tsv", kRight);
  write_file(dir / "labels.tsv",
             "杭州文三路478号华星科技大厦\t浙江省杭州市西湖区文三路478号华星科技大厦\t1\n"
             "北京朝阳建国路88号现代城\t北京市朝阳区建国路88号SOHO现代城\t1\n"
             "上海浦东世纪大道100号上海环球金融中心\t上海市浦东新区世纪大道100号环球金融中心\t1\n"
             "杭州文三路478号华星科技大厦\t杭州市西湖区文二路100号\t0\n");
  const std::string args = model_option() + " --left " + (dir / "left.tsv").string() + " --right " +
                           (dir / "right.tsv").string() + " --eval " + (dir / "labels.tsv").string();
  const auto r = run_cli("link --curve " + (dir / "curve.svg").string() + args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("top-1 accuracy 1.0000 (3 of 3 left rows with a labelled match)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(TP 3 FP 0 FN 0)"), std::string::npos) << r.err;
  EXPECT_TRUE(read_file(dir / "curve.svg").starts_with("<svg"));
  // A threshold above every link's P(exact_match): nothing linked, every labelled match missed.
  const auto strict = run_cli("link --threshold 0.99" + args);
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.err.find("0 linked, 4 without a match at P(exact_match) >= 0.99"), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("(TP 0 FP 0 FN 3)"), std::string::npos) << strict.err;
  const auto best = run_cli("link --threshold best-f1" + args);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_NE(best.err.find("(best-f1 on the labels)"), std::string::npos) << best.err;
  EXPECT_NE(best.err.find("F1 1.0000"), std::string::npos) << best.err;
  EXPECT_EQ(run_cli("link --threshold best-f1" + model_option() + " --left " + (dir / "left.tsv").string() +
                    " --right " + (dir / "right.tsv").string())
                .exit_code,
            2);
}

TEST(CliLink, BadInputIsAClearError) {
  TempDir dir;
  write_file(dir / "right.tsv", kRight);
  write_file(dir / "left.tsv", kLeft);
  write_file(dir / "twice.tsv", "a\t杭州文三路478号\na\t北京朝阳建国路88号\n");
  write_file(dir / "bad.tsv", "a\t杭州文三路478号\nb\t\xff\xfe\n");
  const std::string right = " --right " + (dir / "right.tsv").string();
  const std::string left = " --left " + (dir / "left.tsv").string();
  EXPECT_EQ(run_cli("link" + model_option() + right).exit_code, 2);  // no --left
  EXPECT_EQ(run_cli("link" + model_option() + left).exit_code, 2);   // no right table
  EXPECT_EQ(run_cli("link --right-index " + (dir / "ix").string() + model_option() + left + right).exit_code, 2);
  EXPECT_EQ(run_cli("link --k 0" + model_option() + left + right).exit_code, 2);
  EXPECT_EQ(run_cli("link --k 5 --rerank 3" + model_option() + left + right).exit_code, 2);
  const auto twice = run_cli("link" + model_option() + right + " --left " + (dir / "twice.tsv").string());
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("twice.tsv:2"), std::string::npos) << twice.err;
  const auto bad = run_cli("link" + model_option() + right + " --left " + (dir / "bad.tsv").string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.tsv:2"), std::string::npos) << bad.err;
  const auto skipped = run_cli("link --on-error skip" + model_option() + right + " --left " + (dir / "bad.tsv").string());
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_EQ(lines(skipped.out).size(), 2u) << skipped.out;
  const auto missing = run_cli("link --right-index " + (dir / "nothing").string() + left);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nothing"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace geoalign::link
