#include <gtest/gtest.h>

#include "text/utf8.h"

namespace geoalign::text {
namespace {

TEST(Utf8, DecodesAndEncodesRoundTrip) {
  const std::string s = "北京市 Room 88号 😀 é";
  const std::u32string cps = decode_utf8(s);
  EXPECT_EQ(cps[0], U'北');
  EXPECT_EQ(encode_utf8(cps), s);
  EXPECT_FALSE(find_invalid_utf8(s).has_value());
}

struct InvalidCase {
  std::string bytes;
  std::size_t offset;
};

TEST(Utf8, RejectsInvalidSequencesAtTheirOffset) {
  const InvalidCase cases[] = {
      {"ab\x80", 2},               // lone continuation byte
      {"a\xC0\x80", 1},            // overlong NUL
      {"\xE4\xB8", 0},             // truncated 3-byte sequence
      {"xx\xED\xA0\x80", 2},       // UTF-16 surrogate
      {"\xF4\x90\x80\x80", 0},     // past U+10FFFF
      {"\xFF", 0},                 // never valid
      {"北\xE4\xB8x", 3},          // truncated after a valid character
  };
  for (const auto& c : cases) {
    EXPECT_EQ(find_invalid_utf8(c.bytes), c.offset) << c.bytes;
    try {
      decode_utf8(c.bytes);
      ADD_FAILURE() << "accepted invalid UTF-8";
    } catch (const Utf8Error& e) {
      EXPECT_EQ(e.byte_offset(), c.offset);
      EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(c.offset)), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace geoalign::text
