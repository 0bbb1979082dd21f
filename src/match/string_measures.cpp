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

bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

int chinese_digit(char32_t c) {
  constexpr std::u32string_view kDigits = U"零一二三四五六七八九";
  if (c == U'〇') return 0;
  if (c == U'两') return 2;
  const auto i = kDigits.find(c);
  return i == std::u32string_view::npos ? -1 : static_cast<int>(i);
}

int numeral_unit(char32_t c) {
  switch (c) {
    case U'十': return 10;
    case U'百': return 100;
    case U'千': return 1000;
    default: return 0;
  }
}

// The value of a numeral written with units (二十三, 一百零八, 三千五百, 一百二 = 120), or -1
// where the run is no such numeral (百货, 十三十). A run that starts with 十 counts one ten
// (十三 = 13); 百 and 千 need a digit before them.
long unit_numeral_value(std::u32string_view run) {
  long value = 0;
  int digit = -1, last_unit = 10000;
  bool zero = false;
  for (std::size_t i = 0; i < run.size(); ++i) {
    if (const int unit = numeral_unit(run[i]); unit > 0) {
      if (unit >= last_unit) return -1;
      if (digit < 0 && !(unit == 10 && i == 0)) return -1;
      if (zero && unit * 10 >= last_unit) return -1;  // 零 stands for a skipped place: 一千零五十, not 一千零五百
      value += (digit < 0 ? 1 : digit) * unit;
      last_unit = unit;
      digit = -1;
      zero = false;
    } else if (const int d = chinese_digit(run[i]); digit >= 0) {
      return -1;  // two digits in a row
    } else if (d == 0) {
      if (zero || last_unit == 10000) return -1;
      zero = true;
    } else {
      digit = d;
    }
  }
  if (zero && digit < 0) return -1;  // 一百零
  if (digit >= 0) {
    // 一百零二 is 102, 一百二 is 120: a last digit right after a unit counts a tenth of it.
    value += last_unit == 10000 || zero || last_unit == 10 ? digit : digit * (last_unit / 10);
  }
  return value;
}

// Capital numerals (壹, 贰 ... 拾, 佰, 仟) as ordinary ones where a run of them counts
// something (壹号, 捌栋, 壹佰号, 王砦壹组): in names they are mostly just characters (陆家,
// 佰亿, 玖诚), which must not turn into numbers.
void plain_capital_numerals(std::u32string& s) {
  constexpr std::u32string_view kCapital = U"壹贰叁肆伍陆柒捌玖拾佰仟", kPlain = U"一二三四五六七八九十百千";
  constexpr std::u32string_view kCounted = U"号栋幢楼层室组期座单巷弄排";
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    while (j < s.size() && (kCapital.find(s[j]) != std::u32string_view::npos || (j > i && s[j] == U'零'))) ++j;
    if (j > i && j < s.size() && kCounted.find(s[j]) != std::u32string_view::npos) {
      for (std::size_t k = i; k < j; ++k) {
        if (const auto at = kCapital.find(s[k]); at != std::u32string_view::npos) s[k] = kPlain[at];
      }
    }
    i = std::max(j, i + 1);
  }
}

// A run of digits and units in Arabic digits where it reads as a number. Where it does not
// and holds 百 or 千, the parts around them are read alone, so 五一百货 is 51百货, as it was
// before 百 and 千 were read.
void append_numeral(std::u32string_view run, bool hundreds, std::u32string& out) {
  if (std::none_of(run.begin(), run.end(), [](char32_t c) { return numeral_unit(c) > 0; })) {
    for (const char32_t c : run) out += static_cast<char32_t>(U'0' + chinese_digit(c));
  } else if (const long value = unit_numeral_value(run); value >= 0) {
    for (const char c : std::to_string(value)) out += static_cast<char32_t>(c);
  } else if (hundreds) {
    std::size_t begin = 0;
    for (std::size_t k = 0; k <= run.size(); ++k) {
      if (k == run.size() || run[k] == U'百' || run[k] == U'千') {
        append_numeral(run.substr(begin, k - begin), false, out);
        if (k < run.size()) out += run[k];
        begin = k + 1;
      }
    }
  } else {
    out += run;
  }
}

// Chinese numerals to Arabic: forms with units up to 9,999 (二十三, 一百零八), and
// digit-by-digit runs (一二〇 -> 120).
std::u32string arabic_numerals(const std::u32string& s) {
  std::u32string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    while (j < s.size() && (chinese_digit(s[j]) >= 0 || numeral_unit(s[j]) > 0)) ++j;
    if (j == i) {
      out += s[i++];
      continue;
    }
    append_numeral(std::u32string_view(s.data() + i, j - i), true, out);
    i = j;
  }
  return out;
}

}  // namespace

std::u32string folded_letters(std::string_view utf8) {
  std::u32string s = text::decode_utf8(utf8);
  for (auto& c : s) {
    c = geo::fold_width(c);
    if (c >= U'A' && c <= U'Z') c += U'a' - U'A';
  }
  return s;
}

std::u32string with_arabic_numerals(std::u32string letters) {
  plain_capital_numerals(letters);
  return without_leading_zeros(arabic_numerals(letters));
}

std::u32string without_leading_zeros(std::u32string s) {
  std::size_t kept = 0;
  char32_t previous = 0;  // the last character kept
  for (std::size_t i = 0; i < s.size(); ++i) {
    // A 0 that opens a run before another digit pads the number (088号, 0301室); a lone
    // 0 is one, and so is a 0 after a decimal point.
    const bool pads = s[i] == U'0' && !is_digit(previous) && previous != U'.' && i + 1 < s.size() && is_digit(s[i + 1]);
    if (pads) continue;
    previous = s[kept++] = s[i];
  }
  s.resize(kept);
  return s;
}

std::u32string folded(std::string_view utf8) { return with_arabic_numerals(folded_letters(utf8)); }

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
