#include <gtest/gtest.h>

#include "eval/classification_report.h"
#include "eval/lcs_baseline.h"

namespace geoalign::eval {
namespace {

TEST(ClassificationReport, FiguresFromAKnownConfusionMatrix) {
  ClassificationReport r({"not", "partial", "exact"});
  // gold not: 3 right, 1 called partial; gold partial: 2 right, 1 called exact; gold exact: 1 right.
  for (int i = 0; i < 3; ++i) r.add(0, 0);
  r.add(0, 1);
  r.add(1, 1);
  r.add(1, 1);
  r.add(1, 2);
  r.add(2, 2);
  EXPECT_EQ(r.total(), 8u);
  EXPECT_DOUBLE_EQ(r.accuracy(), 6.0 / 8);
  EXPECT_DOUBLE_EQ(r.precision(1), 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.recall(1), 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.precision(2), 0.5);
  EXPECT_DOUBLE_EQ(r.recall(2), 1.0);
  EXPECT_DOUBLE_EQ(r.f1(0), 2 * 1.0 * 0.75 / 1.75);
  EXPECT_DOUBLE_EQ(r.macro_f1(), (r.f1(0) + r.f1(1) + r.f1(2)) / 3);
  EXPECT_EQ(r.count(1, 2), 1u);
}

TEST(ClassificationReport, EmptyClassesScoreZeroNotNan) {
  ClassificationReport r({"a", "b"});
  r.add(0, 0);
  EXPECT_EQ(r.f1(1), 0.0);
  EXPECT_EQ(r.macro_f1(), 0.5);
}

TEST(LcsBaseline, RatioOverTheLongerAddress) {
  EXPECT_DOUBLE_EQ(lcs_ratio("北京市朝阳区", "北京市朝阳区"), 1.0);
  EXPECT_DOUBLE_EQ(lcs_ratio("北京朝阳", "北京市朝阳区"), 4.0 / 6);
  EXPECT_DOUBLE_EQ(lcs_ratio("abc", "xyz"), 0.0);
  EXPECT_DOUBLE_EQ(lcs_ratio("", "北京"), 0.0);
  EXPECT_EQ(lcs_label(0.9), 2);
  EXPECT_EQ(lcs_label(0.5), 1);
  EXPECT_EQ(lcs_label(0.1), 0);
  // A line near the 1 MiB cap is compared by its first kMaxLcsChars characters.
  std::string long_a, long_b;
  for (std::size_t i = 0; i < 100000; ++i) long_a += "路";
  long_b = long_a + "北京";
  EXPECT_DOUBLE_EQ(lcs_ratio(long_a, long_b), 1.0);
  EXPECT_DOUBLE_EQ(lcs_ratio("北京" + long_a, long_a), static_cast<double>(kMaxLcsChars - 2) / kMaxLcsChars);
}

}  // namespace
}  // namespace geoalign::eval
