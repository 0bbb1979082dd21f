#include "text/variant_folding.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::text {

namespace {

constexpr std::string_view kTraditionalPairs =
#include "text/traditional_chars.inc"
    ;

// Sorted (traditional, simplified) pairs, decoded once.
const std::vector<std::pair<char32_t, char32_t>>& traditional_table() {
  static const auto table = [] {
    const std::u32string chars = decode_utf8(kTraditionalPairs);
    std::vector<std::pair<char32_t, char32_t>> pairs;
    pairs.reserve(chars.size() / 2);
    for (std::size_t i = 0; i + 1 < chars.size(); i += 2) pairs.emplace_back(chars[i], chars[i + 1]);
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }();
  return table;
}

char32_t simplified(char32_t c) {
  if (c < 0x3400) return c;
  const auto& table = traditional_table();
  const auto it = std::lower_bound(table.begin(), table.end(), std::pair<char32_t, char32_t>(c, 0));
  return it != table.end() && it->first == c ? it->second : c;
}

// The number a digit variant stands for, or -1.
int digit_variant(char32_t c) {
  if (c >= 0x2460 && c <= 0x2473) return static_cast<int>(c - 0x2460) + 1;  // ① .. ⑳
  if (c >= 0x2474 && c <= 0x2487) return static_cast<int>(c - 0x2474) + 1;  // ⑴ .. ⒇
  if (c >= 0x2488 && c <= 0x249B) return static_cast<int>(c - 0x2488) + 1;  // ⒈ .. ⒛
  if (c == 0x24EA || c == 0x24FF || c == 0x2070 || c == 0x2080) return 0;   // ⓪ ⓿ ⁰ ₀
  if (c >= 0x24F5 && c <= 0x24FE) return static_cast<int>(c - 0x24F5) + 1;  // ⓵ .. ⓾
  if (c >= 0x2776 && c <= 0x277F) return static_cast<int>(c - 0x2776) + 1;  // ❶ .. ❿
  if (c >= 0x2780 && c <= 0x2789) return static_cast<int>(c - 0x2780) + 1;  // ➀ .. ➉
  if (c >= 0x278A && c <= 0x2793) return static_cast<int>(c - 0x278A) + 1;  // ➊ .. ➓
  if (c >= 0x24EB && c <= 0x24F4) return static_cast<int>(c - 0x24EB) + 11;  // ⓫ .. ⓴
  if (c == 0x00B9) return 1;
  if (c == 0x00B2) return 2;
  if (c == 0x00B3) return 3;
  if (c >= 0x2074 && c <= 0x2079) return static_cast<int>(c - 0x2070);  // ⁴ .. ⁹
  if (c >= 0x2081 && c <= 0x2089) return static_cast<int>(c - 0x2080);  // ₁ .. ₉
  return -1;
}

bool is_dash(char32_t c) { return (c >= 0x2010 && c <= 0x2015) || c == 0x2212 || c == 0xFE58 || c == 0xFE63; }

// Noise at either end of an address: a trailing 。 or ， from a pasted sentence, quotes from
// a CSV export; never a bracket or a digit.
constexpr std::u32string_view kEndNoise = U"。，,、;；:：.!！?？\"'`“”‘’«»·•…_";
bool is_leading_noise(char32_t c) { return kEndNoise.find(c) != std::u32string_view::npos; }
bool is_trailing_noise(char32_t c) { return c == U'-' || is_leading_noise(c); }

bool is_ascii_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

// Dots that join the parts of a name (三一·新境界, 弘阳•旭日景城, 水墨.龙城): the same name is
// as often written without one, and the two spellings must compare equal.
constexpr std::u32string_view kNameDots = U"\u00B7\u2022\u2027\u2219\u30FB\uFF65.";
bool joins_a_name(const std::u32string& out, const std::u32string& text, std::size_t i) {
  return is_name_dot(text[i]) && !out.empty() &&
         unicode::is_cjk_ideograph(out.back()) && i + 1 < text.size() && unicode::is_cjk_ideograph(text[i + 1]);
}

}  // namespace

bool is_name_dot(char32_t c) { return kNameDots.find(c) != std::u32string_view::npos; }

char32_t fold_bracket(char32_t c) {
  switch (c) {
    case U'[': case 0x3010: case 0x300C: case 0x300E: case 0x3014: case 0x3016: return U'(';
    case U']': case 0x3011: case 0x300D: case 0x300F: case 0x3015: case 0x3017: return U')';
    default: return c;
  }
}

void fold_variant_characters(std::u32string& text) {
  std::u32string out;
  out.reserve(text.size() + 4);
  for (const char32_t c : text) {
    if (const int n = digit_variant(c); n >= 0) {
      for (const char d : std::to_string(n)) out.push_back(static_cast<char32_t>(d));
    } else {
      out.push_back(is_dash(c) ? U'-' : simplified(fold_bracket(c)));
    }
  }
  text = std::move(out);
}

void fold_variant_sequences(std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c == U'-' && !out.empty() && out.back() == U'-') continue;
    if (joins_a_name(out, text, i)) continue;
    out.push_back(c == U'#' && !out.empty() && is_ascii_digit(out.back()) ? U'号' : c);
  }
  std::size_t begin = 0, end = out.size();
  while (begin < end && is_leading_noise(out[begin])) ++begin;
  while (end > begin && is_trailing_noise(out[end - 1])) --end;
  if (begin < end) out = out.substr(begin, end - begin);
  text = std::move(out);
}

}  // namespace geoalign::text
