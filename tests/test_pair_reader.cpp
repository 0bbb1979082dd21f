#include <gtest/gtest.h>

#include <sstream>

#include "cli/pair_reader.h"

namespace geoalign::cli {
namespace {

std::vector<std::variant<PairRow, BadRow>> read_all(const std::string& input) {
  std::istringstream in(input);
  PairReader reader(in, "pairs.tsv");
  std::vector<std::variant<PairRow, BadRow>> rows;
  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) rows.push_back(row);
  return rows;
}

TEST(PairReader, SkipsHeaderAndKeepsExtraColumns) {
  const auto rows = read_all("addr1\taddr2\tlabel\n北京\t上海\t0\r\n杭州\t宁波\n");
  ASSERT_EQ(rows.size(), 2u);
  const auto& first = std::get<PairRow>(rows[0]);
  EXPECT_EQ(first.line, 2u);
  EXPECT_EQ(first.a, "北京");
  EXPECT_EQ(first.b, "上海");
  EXPECT_EQ(first.rest, "0");
  EXPECT_EQ(std::get<PairRow>(rows[1]).b, "宁波");
}

TEST(PairReader, EveryBadLineComesBackWithItsNumber) {
  const auto rows = read_all("北京\t上海\n无制表符\n\n\t上海\n北京\t \n北京\t\xFF\n&nbsp;\t上海\n");
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_TRUE(std::holds_alternative<PairRow>(rows[0]));
  const std::pair<std::size_t, const char*> want[] = {{2, "no tab"},         {3, "empty line"},     {4, "addr1 is empty"},
                                                      {5, "addr2 is empty"}, {6, "invalid UTF-8"}, {7, "addr1 is empty"}};
  for (std::size_t i = 0; i < std::size(want); ++i) {
    const auto& bad = std::get<BadRow>(rows[i + 1]);
    EXPECT_EQ(bad.line, want[i].first);
    EXPECT_NE(bad.reason.find(want[i].second), std::string::npos) << bad.reason;
  }
}

TEST(PairReader, HeaderOnlyCountsOnTheFirstLine) {
  const auto rows = read_all("北京\t上海\naddr1\taddr2\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(std::get<PairRow>(rows[1]).a, "addr1");
}

TEST(PairReader, AHeaderNamesItsColumnsExactly) {
  // A first line whose second column only starts with addr2 is a pair, not the header.
  const auto rows = read_all("addr1\taddr2x\t1\naddr1\taddr2\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(std::get<PairRow>(rows[0]).b, "addr2x");
  EXPECT_EQ(read_all("addr1\taddr2\n北京\t上海\n").size(), 1u);
}

TEST(PairReader, OversizedLine) {
  const auto rows = read_all(std::string(LineReader::kMaxLineBytes + 10, 'x') + "\t北京\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(std::get<BadRow>(rows[0]).reason.find("longer than"), std::string::npos);
}

}  // namespace
}  // namespace geoalign::cli
