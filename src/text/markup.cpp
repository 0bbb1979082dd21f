#include "text/markup.h"

#include <string_view>
#include <utility>

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

// The character the reference starting at t[i] == '&' names, and where it ends.
std::pair<char32_t, std::size_t> reference_at(const std::u32string& t, std::size_t i) {
  const std::size_t semicolon = t.find(U';', i + 1);
  if (semicolon == std::u32string::npos || semicolon - i - 1 > kLongestReference) return {0, 0};
  const std::u32string_view body = std::u32string_view(t).substr(i + 1, semicolon - i - 1);
  if (const char32_t c = numeric_reference(body); c != 0) return {c, semicolon + 1};
  for (const auto& [name, c] : kNamedReferences) {
    if (body == name) return {c, semicolon + 1};
  }
  return {0, 0};
}

bool decode_once(std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  bool changed = false;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == U'&') {
      if (const auto [c, end] = reference_at(text, i); c != 0) {
        out.push_back(c);
        i = end;
        changed = true;
        continue;
      }
    }
    const char32_t next = i + 1 < text.size() ? text[i + 1] : 0;
    if (text[i] == U'\\' && (next == U'n' || next == U'r' || next == U't')) {
      out.push_back(U' ');
      i += 2;
      changed = true;
      continue;
    }
    out.push_back(text[i++]);
  }
  if (changed) text = std::move(out);
  return changed;
}

}  // namespace

void decode_markup(std::u32string& text) {
  // Each round that decodes something shortens the text, so this ends.
  while (text.find_first_of(U"&\\") != std::u32string::npos && decode_once(text)) {
  }
}

}  // namespace geoalign::text
