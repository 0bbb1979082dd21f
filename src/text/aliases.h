#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace geoalign::text {

// The names one place goes by: an abbreviation and its expansion (人大 / 中国人民大学,
// 工行 / 中国工商银行, 虹桥机场 / 上海虹桥国际机场). A pair is reconciled before anything
// reads it: a name that one address gives in full and the other in short is written in
// full in both, so the heads, the encoder and the same-text rule compare like with like.
// Only the pair can tell what a short name stands for (人大 is a university beside
// 中国人民大学 and a people's congress beside 人民代表大会), so an address alone is never
// rewritten. Two sources, both read in both directions:
//   - a table of short -> full names: the model folder's aliases.tsv (built from
//     CC-CEDICT's "abbr. for" entries by tools/aliases/build_aliases.py) and the user's
//     own (--aliases FILE);
//   - names made by rule from a full name found in the other address: a bank's first
//     character and 行 (中国工商银行 -> 工行), a university's first characters and 大
//     (北京师范大学 -> 北师大, 哈尔滨工业大学 -> 哈工大, 北京航空航天大学 -> 北航,
//     上海交通大学 -> 上海交大), an office's or unit's words' first characters
//     (住房和城乡建设局 -> 住建局, 卫生健康委员会 -> 卫健委, 市场监督管理局 -> 市监局,
//     交通警察支队 -> 交警支队, 车辆管理所 -> 车管所), an airport without 国际
//     (首都国际机场 -> 首都机场).
// A short name counts only where it stands as a name of its own: at the start, or after
// a division, road or number (市人社局, 海淀区人大), and not followed by what would make
// it part of a longer name (北大街, 河南大学 holds 南大) or a division (大理市 is not
// 大连理工大学's 大理). Thread-safe once built.
class AliasTable {
 public:
  static constexpr const char* kFileName = "aliases.tsv";
  // Characters of the longest name the table holds; a longer line is an error.
  static constexpr std::size_t kMaxNameChars = 32;

  // Lines "short<TAB>full"; blank lines and lines starting with '#' are skipped. Throws
  // Error naming the file and line for a line that is not two names (invalid UTF-8, a
  // missing or third field, a short name that is not shorter than the full one, a name
  // of one character or longer than kMaxNameChars).
  static AliasTable load(const std::filesystem::path& file);
  // The same from a stream; `name` stands for the file in errors.
  static AliasTable read(std::istream& in, const std::string& name);
  // One entry; `where` names it in an error.
  void add(std::string_view short_name, std::string_view full_name, const std::string& where);
  // The entries of `other` as well.
  void merge(const AliasTable& other);
  // Distinct entries (short, full) in the table, rules aside.
  std::size_t size() const { return entries_; }

  // The pair with every name that the other address gives in another form written in
  // full; nullopt when nothing changes. reconcile(b, a) is reconcile(a, b) swapped, so the
  // symmetric reading stays exact. Expects valid UTF-8 (normalized text).
  std::optional<std::pair<std::string, std::string>> reconcile(std::string_view a, std::string_view b) const;

  // The abbreviations the rules make of a full name (for tests and tools): empty when no
  // rule applies to it.
  static std::vector<std::string> rule_abbreviations(std::string_view full_name);

 private:
  struct Mention;
  struct RuleName;
  struct Found;
  struct Rewrite;
  // Adds a checked entry; a repeated one changes nothing.
  void insert(const std::u32string& short_name, const std::u32string& full_name);
  Found find(const std::u32string& text) const;
  std::vector<Rewrite> rewrites(const std::u32string& from, const Found& from_found, const std::u32string& to,
                                const Found& to_found) const;

  // Looked up by views of an address's text, without a copy per lookup.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::u32string_view s) const { return std::hash<std::u32string_view>{}(s); }
  };
  using NameMap = std::unordered_map<std::u32string, std::vector<std::uint32_t>, NameHash, std::equal_to<>>;
  NameMap names_;                          // short or full -> concepts
  std::vector<std::u32string> full_names_;  // by concept id
  std::unordered_map<std::u32string, std::uint32_t, NameHash, std::equal_to<>> concept_of_full_;
  // Every name's first two characters: most places in an address start none, and are
  // passed over with one lookup.
  std::unordered_set<std::uint64_t> starts_;
  std::size_t longest_ = 0;
  std::size_t entries_ = 0;
};

}  // namespace geoalign::text
