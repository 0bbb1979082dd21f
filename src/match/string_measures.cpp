#include "match/string_measures.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "geo/address_tokens.h"
#include "match/scratch.h"
#include "text/utf8.h"

namespace geoalign::match {

namespace {

int chinese_digit(char32_t c) {
  constexpr std::u32string_view kDigits = U"零一二三四五六七八九";
  if (c == U'〇') return 0;
  if (c == U'两') return 2;
  const auto i = kDigits.find(c);
  return i == std::u32string_view::npos ? -1 : static_cast<int>(i);
}

// Chinese numerals to Arabic: 十 forms up to 99, and digit-by-digit runs (一二〇 -> 120).
std::u32string arabic_numerals(const std::u32string& s) {
  std::u32string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    while (j < s.size() && (chinese_digit(s[j]) >= 0 || s[j] == U'十')) ++j;
    if (j == i) {
      out += s[i++];
      continue;
    }
    const std::u32string_view run(s.data() + i, j - i);
    const auto ten = run.find(U'十');
    long value = -1;
    if (ten == std::u32string_view::npos) {
      std::u32string digits;
      for (const char32_t c : run) digits += static_cast<char32_t>(U'0' + chinese_digit(c));
      out += digits;
    } else if (run.size() <= 3 && run.find(U'十', ten + 1) == std::u32string_view::npos) {
      const int tens = ten == 0 ? 1 : (ten == 1 ? chinese_digit(run[0]) : -1);
      const int ones = ten + 1 < run.size() ? chinese_digit(run[ten + 1]) : 0;
      if (tens > 0 && ones >= 0) value = tens * 10 + ones;
      if (value >= 0) {
        for (const char c : std::to_string(value)) out += static_cast<char32_t>(c);
      } else {
        out += run;
      }
    } else {
      out += run;
    }
    i = j;
  }
  return out;
}

}  // namespace

std::u32string folded(std::string_view utf8) {
  std::u32string s = text::decode_utf8(utf8);
  for (auto& c : s) {
    c = geo::fold_width(c);
    if (c >= U'A' && c <= U'Z') c += U'a' - U'A';
  }
  return arabic_numerals(s);
}

std::size_t lcs_length(std::u32string_view a, std::u32string_view b) {
  if (b.size() > a.size()) std::swap(a, b);  // the length is symmetric; b is the shorter
  if (b.size() <= 64) {
    // Bit-parallel (Hyyro 2004; Crochemore et al. 2001): bit j of v is 0 where the LCS of
    // a's prefix and b[0, j] gains a character over b[0, j - 1]; one step per character
    // of a instead of a row of b.size() dependent maxima.
    std::uint64_t v = ~std::uint64_t{0};
    for (const char32_t ca : a) {
      std::uint64_t matches = 0;
      for (std::size_t j = 0; j < b.size(); ++j) matches |= std::uint64_t{b[j] == ca} << j;
      const std::uint64_t u = v & matches;
      v = (v + u) | (v - u);
    }
    const std::uint64_t columns = b.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b.size()) - 1;
    return static_cast<std::size_t>(std::popcount(~v & columns));
  }
  const std::span<std::size_t> row = scratch_sizes(b.size() + 1);
  std::fill(row.begin(), row.end(), 0);
  for (const char32_t ca : a) {
    std::size_t diagonal = 0;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = ca == b[j - 1] ? diagonal + 1 : std::max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.size()];
}

SharedRun longest_shared_run(std::u32string_view a, std::u32string_view b) {
  const std::span<std::size_t> row = scratch_sizes(b.size() + 1);
  std::fill(row.begin(), row.end(), 0);
  SharedRun best;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = b.size(); j >= 1; --j) {
      row[j] = a[i] == b[j - 1] ? row[j - 1] + 1 : 0;
      if (row[j] > best.length) best = {row[j], i + 1, j};
    }
  }
  return best;
}

std::u32string unify_building_words(std::u32string s) {
  auto replace_all = [&](std::u32string_view from, std::u32string_view to) {
    for (std::size_t at = s.find(from); at != std::u32string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
    }
  };
  replace_all(U"号楼", U"#");
  replace_all(U"号院", U"院");
  for (auto& c : s) {
    if (c == U'栋' || c == U'幢' || c == U'座') c = U'#';
  }
  return s;
}

bool contains(std::u32string_view a, std::u32string_view b) {
  return a.find(b) != std::u32string::npos || b.find(a) != std::u32string::npos;
}

}  // namespace geoalign::match
