#include <gtest/gtest.h>

#include <sstream>
#include <streambuf>

#include "cli/input_file.h"
#include "cli/line_reader.h"
#include "geoalign/error.h"
#include "support/temp_dir.h"

namespace geoalign::cli {
namespace {

std::vector<InputLine> read_all(const std::string& input) {
  std::istringstream in(input);
  LineReader reader(in, "addresses.txt");
  std::vector<InputLine> lines;
  for (InputLine line; reader.next(line);) lines.push_back(line);
  return lines;
}

TEST(LineReader, NumbersEveryLineAndStripsCrlf) {
  const auto lines = read_all("北京\r\n\n上海");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "北京");
  EXPECT_EQ(lines[1].text, "");
  EXPECT_EQ(lines[2].text, "上海");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].number, i + 1);
    EXPECT_TRUE(lines[i].problem.empty()) << lines[i].problem;
  }
}

TEST(LineReader, LoneCarriageReturnsEndLinesAsOldSpreadsheetExportsWriteThem) {
  const auto lines = read_all("北京\t上海\r杭州\t苏州\r\r\n广州\r");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "北京\t上海");
  EXPECT_EQ(lines[1].text, "杭州\t苏州");  // \r\r\n: a CR LF file written again in text mode
  EXPECT_EQ(lines[2].text, "广州");
  std::istringstream in("北京\r上海\r\n广州\r");
  LineReader reader(in, "addresses.txt");
  std::vector<std::string> texts;
  for (InputLine line; reader.next(line);) texts.push_back(line.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"北京", "上海", "广州"}));
  EXPECT_EQ(reader.bytes_read(), in.str().size());
}

TEST(LineReader, LoneCarriageReturnsInARowAreBlankLines) {
  // In a file of lone CRs, CR CR ends a line and then a blank one: a blank line is a bad
  // row for every command, and dropping it would shift every later line number.
  const auto lines = read_all("北京\r\r上海\r\r\r广州\r\r\n深圳");
  std::vector<std::string> texts;
  for (const auto& l : lines) texts.push_back(l.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"北京", "", "上海", "", "", "广州", "深圳"}));
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i].number, i + 1);
}

TEST(LineReader, UnusableLinesSayWhyAndTheNextLineIsClean) {
  const auto lines = read_all("北\xE4\xBA\n" + std::string(LineReader::kMaxLineBytes + 1, 'x') + "\n杭州\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].problem, "invalid UTF-8 at byte 4 of the line");
  EXPECT_NE(lines[1].problem.find("longer than"), std::string::npos);
  EXPECT_TRUE(lines[2].problem.empty());
  EXPECT_EQ(lines[2].text, "杭州");
}

// /dev/zero as input: bytes for ever, none of them a line end.
class EndlessZeros : public std::streambuf {
 protected:
  int_type underflow() override {
    setg(zeros_, zeros_, zeros_ + sizeof zeros_);
    return 0;
  }

 private:
  char zeros_[4096] = {};
};

// An overlong line is skipped to its end; an input with no end to its line (a binary file,
// /dev/zero) ran until killed.
TEST(LineReader, ALineWithoutAnEndStopsTheReadWithAnError) {
  EndlessZeros zeros;
  std::istream in(&zeros);
  LineReader reader(in, "/dev/zero");
  InputLine line;
  try {
    reader.next(line);
    FAIL() << "read a line from an endless input";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "line 1 of /dev/zero runs past 64 MiB without a line end: not lines of text");
  }
}

TEST(LineReader, ByteOrderMarkIsDroppedFromTheFirstLineOnly) {
  const auto lines = read_all("\xEF\xBB\xBF北京\n\xEF\xBB\xBF上海\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "北京");
  EXPECT_EQ(lines[1].text, "\xEF\xBB\xBF上海");
}

TEST(LineReader, AnOverlongFirstLineIsRefusedWithItsByteOrderMark) {
  // The mark does not count against the cap, and does not hide the overflow either.
  const std::string bom = "\xEF\xBB\xBF";
  const auto over = read_all(bom + std::string(LineReader::kMaxLineBytes + 20, 'a') + "\n杭州\n");
  ASSERT_EQ(over.size(), 2u);
  EXPECT_NE(over[0].problem.find("longer than"), std::string::npos);
  EXPECT_TRUE(over[0].text.empty());
  EXPECT_EQ(over[1].text, "杭州");
  const auto at_cap = read_all(bom + std::string(LineReader::kMaxLineBytes, 'a') + "\n");
  ASSERT_EQ(at_cap.size(), 1u);
  EXPECT_TRUE(at_cap[0].problem.empty()) << at_cap[0].problem;
  EXPECT_EQ(at_cap[0].text.size(), LineReader::kMaxLineBytes);
  const auto one_over = read_all(std::string(LineReader::kMaxLineBytes + 1, 'a'));
  ASSERT_EQ(one_over.size(), 1u);
  EXPECT_FALSE(one_over[0].problem.empty());
}

TEST(LineReader, CountsEveryByteConsumed) {
  std::istringstream in("\xEF\xBB\xBF北京\r\n\n上海");
  LineReader reader(in, "addresses.txt");
  InputLine line;
  EXPECT_EQ(reader.bytes_read(), 0u);
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(reader.bytes_read(), 3u + 6u + 2u);
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(reader.bytes_read(), 12u);
  ASSERT_TRUE(reader.next(line));
  ASSERT_FALSE(reader.next(line));
  EXPECT_EQ(reader.bytes_read(), in.str().size());
}

TEST(InputFile, SizeIsKnownForFilesOnly) {
  testing::TempDir dir;
  testing::write_file(dir / "in.txt", "北京\n上海\n");
  EXPECT_EQ(InputFile((dir / "in.txt").string()).size(), 14u);
  EXPECT_EQ(InputFile("-").size(), 0u);
  EXPECT_EQ(InputFile("/dev/null").size(), 0u);
}

// A source that gives one line and then fails, as a disk or pipe can.
class FailingBuffer : public std::streambuf {
 public:
  FailingBuffer() { setg(text_, text_, text_ + 3); }

 protected:
  int_type underflow() override { throw std::runtime_error("device gone"); }

 private:
  char text_[4] = "ab\n";
};

TEST(LineReader, ReadErrorIsNotTheEndOfInput) {
  FailingBuffer buffer;
  std::istream in(&buffer);
  LineReader reader(in, "addresses.txt");
  InputLine line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "ab");
  try {
    reader.next(line);
    FAIL() << "a read error must throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "read error after line 1 of addresses.txt: device gone");
  }
}

}  // namespace
}  // namespace geoalign::cli
