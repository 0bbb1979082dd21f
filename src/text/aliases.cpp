#include "text/aliases.h"

#include <algorithm>
#include <fstream>

#include "geo/table_lines.h"
#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::text {

namespace {

bool has(std::u32string_view set, char32_t c) { return set.find(c) != std::u32string_view::npos; }

// What may stand right before a name of its own: a division, road, number, building or
// office word (公安局交警支队), or anything that is not a Han character (digits, letters,
// blanks, brackets).
constexpr std::u32string_view kBeforeName = U"省市区县旗州镇乡村街道路巷弄里号楼栋座层室馆内旁边局厅";
// What, right after a short name, makes it part of a longer one (北大街, 南大学), also
// after a direction (师大东路), or a division named so (大理市 is not 大连理工大学).
constexpr std::u32string_view kContinuesName = U"路街道巷弄胡同村镇桥里学厦场园省市区县州旗乡";

bool is_han(char32_t c) { return c >= 0x3400 && c <= 0x9FFF; }

bool starts_name(const std::u32string& text, std::size_t begin) {
  if (begin == 0) return true;
  const char32_t before = text[begin - 1];
  return !is_han(before) || has(kBeforeName, before);
}

// Words that, right after a short name, make it another place named after it
// (复旦中学 is not 复旦大学中学).
constexpr std::u32string_view kPlaceWords[] = {U"中学", U"小学", U"幼儿园", U"医院", U"公园", U"广场", U"大厦",
                                              U"酒店", U"宾馆", U"商场", U"花园", U"小区", U"新村", U"公寓"};

bool ends_name(const std::u32string& text, std::size_t end) {
  if (end == text.size()) return true;
  if (has(kContinuesName, text[end])) return false;
  const std::u32string_view rest = std::u32string_view(text).substr(end);
  for (const auto word : kPlaceWords) {
    if (rest.starts_with(word)) return false;
  }
  // 师大东路, 北大南街: a road named after the place, not the place.
  return !(has(U"东西南北中", text[end]) && end + 1 < text.size() && has(U"路街道巷弄", text[end + 1]));
}

bool stands_alone(const std::u32string& text, std::size_t begin, std::size_t end) {
  return starts_name(text, begin) && ends_name(text, end);
}

// A window of characters that may be the words of a name: Han characters only, and no
// division word after its first character (州市公安 is the end of 杭州市 and a word),
// unless the window starts where a name does (城市管理局 after 重庆市).
bool name_window(const std::u32string& text, std::size_t begin, std::size_t size) {
  const bool at_name_start = starts_name(text, begin);
  for (std::size_t i = begin; i < begin + size; ++i) {
    if (!is_han(text[i])) return false;
    if (i > begin && !at_name_start && has(U"省市区县", text[i])) return false;
  }
  return true;
}

std::uint64_t start_key(char32_t first, char32_t second) { return (std::uint64_t{first} << 32) | second; }

std::u32string decode(std::string_view text, const std::string& where) {
  try {
    return decode_utf8(text);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
}

}  // namespace

struct AliasTable::Mention {
  std::size_t begin, end;
  const std::vector<std::uint32_t>* concepts;
};

// A full name the rules recognise in an address, and the short names they make of it.
struct AliasTable::RuleName {
  std::size_t begin, end;
  std::u32string full;
  std::vector<std::u32string> shorts;
};

struct AliasTable::Found {
  std::vector<Mention> mentions;
  std::vector<RuleName> rule_names;
};

struct AliasTable::Rewrite {
  std::size_t begin, end;
  std::u32string with;
};

namespace {

using RuleNames = std::vector<std::u32string>;

// Every full name the rules know inside `text`, by the word it ends in. A short name the
// full one holds is dropped: it is a word of the name, not an abbreviation of it
// (上海海事大学's initials 上海 are also the city).
template <typename Add>
void find_rule_names(const std::u32string& text, Add&& found) {
  const std::u32string_view t(text);
  // `without_prefix`: the name without its 中国, which the full name holds and is a short
  // name all the same (民生银行 of 中国民生银行).
  const auto add = [&](std::size_t begin, std::size_t end, RuleNames shorts, std::u32string without_prefix = {}) {
    const std::u32string_view full = t.substr(begin, end - begin);
    std::erase_if(shorts, [&](const std::u32string& s) { return full.find(s) != std::u32string_view::npos; });
    if (!without_prefix.empty()) shorts.push_back(std::move(without_prefix));
    if (!shorts.empty()) found(begin, end, std::move(shorts));
  };
  const auto word_at = [&](std::size_t k, std::u32string_view word) { return t.substr(k, word.size()) == word; };
  for (std::size_t k = 0; k < t.size(); ++k) {
    // Every rule starts at one of these characters; most of an address is none of them.
    if (!has(U"银大国委局厅部支所", t[k])) continue;
    // Banks: 中国银行 -> 中行; 中国工商银行 -> 工行, 工商银行; 交通银行 -> 交行;
    // 中国邮政储蓄银行 -> 邮储银行, 邮政储蓄银行. A stem's first character that would make
    // a common word with 行 (商行, 发行, 分行) makes no short name.
    if (word_at(k, U"银行")) {
      if (k >= 2 && word_at(k - 2, U"中国")) add(k - 2, k + 2, RuleNames{U"中行"});
      for (std::size_t n : {2, 4}) {
        if (k < n || !name_window(text, k - n, n) || word_at(k - n, U"中国")) continue;
        const std::u32string stem(t.substr(k - n, n));
        RuleNames shorts;
        if (n == 2 && !has(U"商发分支总银行", stem[0])) shorts.push_back(stem.substr(0, 1) + U"行");
        if (n == 4) shorts.push_back(std::u32string{stem[0], stem[2]} + U"银行");
        if (shorts.empty()) continue;
        const bool of_china = k >= n + 2 && word_at(k - n - 2, U"中国");
        add(k - n - (of_china ? 2 : 0), k + 2, std::move(shorts), of_china ? stem + U"银行" : std::u32string());
      }
    }
    // Universities: the place's first character, then each word's (北京大学 -> 北大;
    // 北京师范大学 -> 北师大, 北师; 华中科技大学 -> 华科; 北京航空航天大学 -> 北航;
    // 中国科学技术大学 -> 中科大), a place of three characters (哈尔滨工业大学 -> 哈工大,
    // 哈尔滨工程大学 -> 哈工程), or the place kept whole (上海交通大学 -> 上海交大,
    // 华东师范大学 -> 华东师大) or a word kept whole (北京理工大学 -> 北理工).
    if (word_at(k, U"大学")) {
      for (std::size_t n : {2, 4, 5, 6}) {
        if (k < n || !name_window(text, k - n, n)) continue;
        const std::u32string_view name = t.substr(k - n, n);
        const std::u32string first(1, name[0]);
        RuleNames shorts;
        if (n == 2) shorts = {first + U"大"};
        if (n == 4) {
          shorts = {first + name[2] + U"大", first + name[2], std::u32string(name.substr(0, 3)) + U"大",
                    first + std::u32string(name.substr(2))};
        }
        // Five: a place of three characters and a word of two, or of two and a word of three.
        if (n == 5) shorts = {first + name[3] + U"大", first + std::u32string(name.substr(3)), first + name[2]};
        if (n == 6) shorts = {first + name[2] + U"大", first + name[2]};
        add(k - n, k + 2, std::move(shorts));
      }
    }
    // Airports: 上海虹桥国际机场 -> 虹桥机场.
    if (word_at(k, U"国际机场")) {
      for (std::size_t n : {2, 3, 4}) {
        if (k < n || !name_window(text, k - n, n)) continue;
        add(k - n, k + 4, RuleNames{std::u32string(t.substr(k - n, n)) + U"机场"});
      }
    }
    // Offices and units: the first character of each word and the office's own word
    // (交通警察支队 -> 交警支队, 车辆管理所 -> 车管所; of the many 所, only a 管理所).
    for (const std::u32string_view office : {U"委员会", U"局", U"厅", U"部", U"支队", U"大队", U"所"}) {
      if (!word_at(k, office) || (office == U"所" && !(k >= 2 && word_at(k - 2, U"管理")))) continue;
      const std::u32string suffix = office == U"委员会" ? U"委" : std::u32string(office);
      const std::size_t end = k + office.size();
      // 住房和城乡建设局 -> 住建局, 住城局; 人力资源和社会保障局 -> 人社局, 人力社保局.
      for (std::size_t q : {2, 4}) {
        if (k < q + 1 || t[k - q - 1] != U'和' || !name_window(text, k - q, q)) continue;
        const std::size_t and_at = k - q - 1;
        const std::u32string_view second = t.substr(k - q, q);
        for (std::size_t p : {2, 4}) {
          if (and_at < p || !name_window(text, and_at - p, p)) continue;
          const std::u32string_view first = t.substr(and_at - p, p);
          RuleNames shorts{std::u32string{first[0], second[0]} + suffix};
          if (q == 4) {
            shorts.push_back(std::u32string{first[0], second[2]} + suffix);
            if (p == 4) shorts.push_back(std::u32string{first[0], first[1], second[0], second[2]} + suffix);
          }
          add(and_at - p, end, std::move(shorts));
        }
      }
      // 卫生健康委员会 -> 卫健委; 市场监督管理局 -> 市监管局, 市监局.
      for (std::size_t n : {4, 6}) {
        if (k < n || !name_window(text, k - n, n)) continue;
        const std::u32string_view name = t.substr(k - n, n);
        if (has(name, U'和')) continue;
        std::u32string initials;
        for (std::size_t w = 0; w < n; w += 2) initials += name[w];
        RuleNames shorts{initials + suffix};
        // 管理 is often left out; the first word is often kept whole (市场监管局).
        if (name.substr(n - 2) == U"管理") shorts.push_back(initials.substr(0, initials.size() - 1) + suffix);
        if (n == 6) shorts.push_back(std::u32string(name.substr(0, 2)) + initials.substr(1) + suffix);
        add(k - n, end, std::move(shorts));
      }
    }
  }
}

}  // namespace

AliasTable AliasTable::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot read the alias table " + file.string());
  return read(in, file.string());
}

AliasTable AliasTable::read(std::istream& in, const std::string& name) {
  AliasTable table;
  geo::for_each_table_line(in, name, [&](std::string_view line, std::size_t number) {
    const std::string where = geo::table_place(name, number);
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      throw Error(where + ": expected two names separated by one tab (short<TAB>full)");
    }
    table.add(line.substr(0, tab), line.substr(tab + 1), where);
  });
  return table;
}

void AliasTable::add(std::string_view short_name, std::string_view full_name, const std::string& where) {
  const std::u32string s = decode(short_name, where), f = decode(full_name, where);
  if (s.size() < 2 || f.size() < 2) throw Error(where + ": a name must have at least two characters");
  if (s.size() >= f.size()) throw Error(where + ": the short name must be shorter than the full one");
  if (f.size() > kMaxNameChars) {
    throw Error(where + ": a name longer than " + std::to_string(kMaxNameChars) + " characters");
  }
  insert(s, f);
}

void AliasTable::insert(const std::u32string& short_name, const std::u32string& full_name) {
  const auto [it, added] = concept_of_full_.try_emplace(full_name, static_cast<std::uint32_t>(full_names_.size()));
  if (added) full_names_.push_back(full_name);
  const std::uint32_t id = it->second;
  auto& of_short = names_[short_name];
  if (std::find(of_short.begin(), of_short.end(), id) != of_short.end()) return;  // said before
  of_short.push_back(id);
  auto& of_full = names_[full_name];
  if (std::find(of_full.begin(), of_full.end(), id) == of_full.end()) of_full.push_back(id);
  for (const auto& name : {short_name, full_name}) {
    starts_.insert(start_key(name[0], name[1]));
    longest_ = std::max(longest_, name.size());
  }
  ++entries_;
}

void AliasTable::merge(const AliasTable& other) {
  // Checked when `other` was read; every name of it that is not a full name is a short one.
  for (const auto& [name, concepts] : other.names_) {
    for (std::uint32_t id : concepts) {
      if (name != other.full_names_[id]) insert(name, other.full_names_[id]);
    }
  }
}

AliasTable::Found AliasTable::find(const std::u32string& text) const {
  Found found;
  // The table's names, leftmost and longest first.
  const std::u32string_view view(text);
  for (std::size_t i = 0; i < text.size();) {
    std::size_t matched = 0;
    if (i + 1 < text.size() && starts_.count(start_key(text[i], text[i + 1])) != 0) {
      for (std::size_t n = std::min(longest_, text.size() - i); n >= 2 && matched == 0; --n) {
        const auto it = names_.find(view.substr(i, n));
        if (it == names_.end()) continue;
        // A full name counts wherever it is; a short one only where it stands alone, or
        // right after another name (人大附中: 人大, then 附中).
        const bool full = concept_of_full_.find(std::u32string_view(it->first)) != concept_of_full_.end();
        const bool after_name = !found.mentions.empty() && found.mentions.back().end == i;
        if (full || (after_name ? ends_name(text, i + n) : stands_alone(text, i, i + n))) {
          found.mentions.push_back({i, i + n, &it->second});
          matched = n;
        }
      }
    }
    i += matched == 0 ? 1 : matched;
  }
  find_rule_names(text, [&](std::size_t begin, std::size_t end, RuleNames shorts) {
    found.rule_names.push_back({begin, end, text.substr(begin, end - begin), std::move(shorts)});
  });
  return found;
}

std::vector<AliasTable::Rewrite> AliasTable::rewrites(const std::u32string& from, const Found& from_found,
                                                      const std::u32string& to, const Found& to_found) const {
  std::vector<Rewrite> out;
  // The table: a name of `to` that shares a concept with a differently written name of `from`.
  for (const Mention& there : to_found.mentions) {
    const std::u32string_view surface = std::u32string_view(to).substr(there.begin, there.end - there.begin);
    for (const Mention& here : from_found.mentions) {
      if (std::u32string_view(from).substr(here.begin, here.end - here.begin) == surface) continue;
      const auto shared = std::find_first_of(there.concepts->begin(), there.concepts->end(), here.concepts->begin(),
                                             here.concepts->end());
      if (shared == there.concepts->end()) continue;
      const std::u32string& full = full_names_[*shared];
      if (surface != full) out.push_back({there.begin, there.end, full});
      break;
    }
  }
  // The rules: a short name in `to` of a full name in `from` that `to` does not give in full.
  for (const RuleName& name : from_found.rule_names) {
    if (to.find(name.full) != std::u32string::npos) continue;
    for (const std::u32string& short_name : name.shorts) {
      for (std::size_t at = to.find(short_name); at != std::u32string::npos; at = to.find(short_name, at + 1)) {
        if (stands_alone(to, at, at + short_name.size())) out.push_back({at, at + short_name.size(), name.full});
      }
    }
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> AliasTable::reconcile(std::string_view a, std::string_view b) const {
  if (a == b) return std::nullopt;
  const std::u32string ta = decode(a, "address"), tb = decode(b, "address");
  const Found fa = find(ta), fb = find(tb);
  if (fa.mentions.empty() && fb.mentions.empty() && fa.rule_names.empty() && fb.rule_names.empty()) return std::nullopt;
  std::vector<Rewrite> in_a = rewrites(tb, fb, ta, fa), in_b = rewrites(ta, fa, tb, fb);
  if (in_a.empty() && in_b.empty()) return std::nullopt;
  // The rewrites that do not overlap an earlier one (at one place, the longer one), applied.
  const auto apply = [](const std::u32string& text, std::vector<Rewrite>& list) {
    std::sort(list.begin(), list.end(), [](const Rewrite& x, const Rewrite& y) {
      if (x.begin != y.begin) return x.begin < y.begin;
      // At one place, the longer name (the rules' 中国工商银行 over the table's 工商银行).
      return x.end != y.end ? x.end > y.end : x.with.size() > y.with.size();
    });
    std::u32string out;
    std::size_t done = 0;
    for (const Rewrite& r : list) {
      if (r.begin < done) continue;
      out.append(text, done, r.begin - done);
      out += r.with;
      done = r.end;
    }
    out.append(text, done);
    return encode_utf8(out);
  };
  return std::make_pair(apply(ta, in_a), apply(tb, in_b));
}

std::vector<std::string> AliasTable::rule_abbreviations(std::string_view full_name) {
  const std::u32string text = decode(full_name, "name");
  std::vector<std::string> out;
  find_rule_names(text, [&](std::size_t begin, std::size_t end, const RuleNames& shorts) {
    if (begin != 0 || end != text.size()) return;
    for (const auto& s : shorts) out.push_back(encode_utf8(s));
  });
  return out;
}

}  // namespace geoalign::text
