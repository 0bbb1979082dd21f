#include "text/floor_folding.h"

#include <optional>
#include <string_view>

namespace geoalign::text {

namespace {

bool is_ascii_digit(char32_t c) { return c >= U'0' && c <= U'9'; }
bool is_ascii_letter(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z'); }
bool is_ascii_alnum(char32_t c) { return is_ascii_digit(c) || is_ascii_letter(c); }
bool is_floor_unit(char32_t c) { return c == U'层' || c == U'楼'; }

// What follows a floor's F when it is no floor: a house or building number's unit.
bool ends_a_number(char32_t c) { return std::u32string_view(U"号栋座幢室单").find(c) != std::u32string_view::npos; }

char32_t chinese_digit(char32_t c) {
  constexpr std::u32string_view kDigits = U"一二三四五六七八九";
  const auto at = kDigits.find(c);
  return at == std::u32string_view::npos ? 0 : static_cast<char32_t>(U'1' + at);
}

struct Floor {
  std::u32string number;  // ASCII digits
  std::size_t end;        // one past the spelling in the text
};

char32_t at(const std::u32string& text, std::size_t i) { return i < text.size() ? text[i] : 0; }

// An F (or f) that ends a floor at i: not before a Latin letter or digit.
bool floor_f_at(const std::u32string& text, std::size_t i) {
  const char32_t c = at(text, i), next = at(text, i + 1);
  return (c == U'F' || c == U'f') && !is_ascii_alnum(next);
}

// Where a basement's unit that starts at i ends, or 0: 层, 楼 where `tower` allows it, or an F
// with the 层 or 楼 that may follow it (B1F层), so that one pass writes the one spelling.
std::size_t basement_unit_end(const std::u32string& text, std::size_t i, bool tower) {
  const char32_t c = at(text, i);
  if (c == U'层' || (tower && c == U'楼')) return i + 1;
  if (floor_f_at(text, i)) return i + 1 + (is_floor_unit(at(text, i + 1)) ? 1 : 0);
  return 0;
}

// A basement spelled from i on: 负 or 地下 with one or two digits or one Chinese digit, then
// 层, 楼 or F; or B with one digit, then 层 or F.
std::optional<Floor> basement_at(const std::u32string& text, std::size_t i) {
  const char32_t c = text[i];
  Floor floor;
  if (c == U'负' || (c == U'地' && at(text, i + 1) == U'下')) {
    std::size_t j = i + (c == U'负' ? 1 : 2);
    if (const char32_t d = chinese_digit(at(text, j)); d != 0) {
      floor.number = d;
      ++j;
    } else {
      while (is_ascii_digit(at(text, j)) && floor.number.size() < 3) floor.number += text[j++];
      if (floor.number.empty() || floor.number.size() > 2 || floor.number[0] == U'0') return std::nullopt;
    }
    floor.end = basement_unit_end(text, j, true);
    if (floor.end == 0) return std::nullopt;
    return floor;
  }
  if ((c == U'B' || c == U'b') && (i == 0 || !is_ascii_alnum(text[i - 1]))) {
    const char32_t d = at(text, i + 1);
    if (d < U'1' || d > U'9') return std::nullopt;
    floor.number = d;
    floor.end = basement_unit_end(text, i + 2, false);
    if (floor.end == 0) return std::nullopt;
    return floor;
  }
  return std::nullopt;
}

}  // namespace

void fold_floor_spellings(std::u32string& text) {
  std::u32string out;
  out.reserve(text.size() + 4);
  std::size_t i = 0;
  while (i < text.size()) {
    if (const auto basement = basement_at(text, i)) {
      out += U'负';
      out += basement->number;
      out += U'层';
      i = basement->end;
      continue;
    }
    if (is_ascii_digit(text[i]) && (i == 0 || !is_ascii_alnum(text[i - 1]))) {
      std::size_t j = i;
      while (j < text.size() && is_ascii_digit(text[j])) ++j;
      const char32_t after_f = at(text, j + 1);
      if (j - i <= 3 && floor_f_at(text, j) && !ends_a_number(after_f)) {
        out.append(text, i, j - i);
        out += is_floor_unit(after_f) ? after_f : U'层';
        i = j + 1 + (is_floor_unit(after_f) ? 1 : 0);
        continue;
      }
      out.append(text, i, j - i);  // the whole run: a digit inside it never starts a floor
      i = j;
      continue;
    }
    out += text[i++];
  }
  text = std::move(out);
}

}  // namespace geoalign::text
