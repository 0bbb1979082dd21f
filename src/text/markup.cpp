#include "text/markup.h"

#include <string_view>
#include <utility>

#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::text {

namespace {

// The names an address plausibly carries, not HTML's 2,000: a rare name left undecoded is
// a few characters of noise, where a long table would be a long list to keep right.
constexpr std::pair<std::u32string_view, char32_t> kNamedReferences[] = {
    {U"nbsp", 0x00A0},   {U"amp", U'&'},      {U"lt", U'<'},       {U"gt", U'>'},       {U"quot", U'"'},
    {U"apos", U'\''},    {U"middot", 0x00B7}, {U"bull", 0x2022},   {U"ndash", 0x2013},  {U"mdash", 0x2014},
    {U"hellip", 0x2026}, {U"ldquo", 0x201C},  {U"rdquo", 0x201D},  {U"lsquo", 0x2018},  {U"rsquo", 0x2019},
    {U"ensp", 0x2002},   {U"emsp", 0x2003},   {U"thinsp", 0x2009}, {U"times", 0x00D7},  {U"deg", 0x00B0},
};

// The longest reference read: &#x10FFFF; and &hellip; fit.
constexpr std::size_t kLongestReference = 10;

int digit_value(char32_t c, int base) {
  if (c >= U'0' && c <= U'9') return static_cast<int>(c - U'0');
  if (base == 16 && c >= U'a' && c <= U'f') return static_cast<int>(c - U'a') + 10;
  if (base == 16 && c >= U'A' && c <= U'F') return static_cast<int>(c - U'A') + 10;
  return -1;
}

// The character a numeric reference body (#183, #x4E2D) names, or 0 for none.
char32_t numeric_reference(std::u32string_view body) {
  if (body.size() < 2 || body[0] != U'#') return 0;
  const bool hex = body[1] == U'x' || body[1] == U'X';
  const int base = hex ? 16 : 10;
  const std::u32string_view digits = body.substr(hex ? 2 : 1);
  if (digits.empty()) return 0;
  char32_t value = 0;
  for (const char32_t c : digits) {
    const int d = digit_value(c, base);
    if (d < 0) return 0;
    value = value * base + static_cast<char32_t>(d);
    if (value > 0x10FFFF) return 0;
  }
  // NUL, surrogates and C0 controls other than blanks name nothing an address holds.
  const bool surrogate = value >= 0xD800 && value <= 0xDFFF;
  const bool control = value < 0x20 && value != U'\t' && value != U'\n';
  return value == 0 || surrogate || control ? 0 : value;
}

// The character the reference that `tail` ends with (&...;) names, and its length; {0, 0}
// for none. A reference holds no '&', so only the last one can begin it.
std::pair<char32_t, std::size_t> reference_ending(std::u32string_view tail) {
  const std::size_t amp = tail.rfind(U'&');
  if (amp == std::u32string_view::npos || tail.size() - amp - 2 > kLongestReference) return {0, 0};
  const std::u32string_view body = tail.substr(amp + 1, tail.size() - amp - 2);
  if (const char32_t c = numeric_reference(body); c != 0) return {c, body.size() + 2};
  for (const auto& [name, c] : kNamedReferences) {
    if (body == name) return {c, body.size() + 2};
  }
  return {0, 0};
}

// Appends c to out, decoding what it completes there; what a decoding yields may complete
// more (&amp;nbsp; gives & then a no-break space; &#92;n gives \ then a blank). Decoding
// at the end of what is written, one character at a time, reaches the text repeated
// decoding would, in one pass: a line of 300,000 ampersands once took 27 s.
void append_decoded(std::u32string& out, char32_t c) {
  for (;;) {
    if (c == U';') {
      const std::size_t from = out.size() > kLongestReference + 1 ? out.size() - kLongestReference - 1 : 0;
      out.push_back(c);
      const auto [decoded, length] = reference_ending(std::u32string_view(out).substr(from));
      if (decoded == 0) return;
      out.resize(out.size() - length);
      c = decoded;
      continue;
    }
    if ((c == U'n' || c == U'r' || c == U't') && !out.empty() && out.back() == U'\\') {
      out.back() = U' ';
      return;
    }
    out.push_back(c);
    return;
  }
}

}  // namespace

void decode_markup(std::u32string& text) {
  if (text.find_first_of(U"&\\") == std::u32string::npos) return;
  std::u32string out;
  out.reserve(text.size());
  for (const char32_t c : text) append_decoded(out, c);
  text = std::move(out);
}

bool is_blank_address(std::string_view utf8) {
  if (unicode::is_blank(utf8)) return true;
  if (utf8.find_first_of("&\\") == std::string_view::npos) return false;
  std::u32string text = decode_utf8(utf8);
  decode_markup(text);
  return unicode::is_blank(encode_utf8(text));
}

}  // namespace geoalign::text
