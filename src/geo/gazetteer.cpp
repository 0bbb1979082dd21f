#include "geo/gazetteer.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "common/open_file.h"
#include "geo/table_lines.h"
#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::geo {

namespace {

// Rows the shipped table has (about 45,000), reserved before parsing it.
constexpr std::size_t kExpectedDivisions = 48 * 1024;

// The 55 minority nationalities, as they appear in autonomous division names.
constexpr std::array<std::u32string_view, 55> kNationalities = {
    U"蒙古", U"回",   U"藏",     U"维吾尔", U"苗",     U"彝",   U"壮",   U"布依", U"朝鲜", U"满",   U"侗",
    U"瑶",   U"白",   U"土家",   U"哈尼",   U"哈萨克", U"傣",   U"黎",   U"傈僳", U"佤",   U"畲",   U"高山",
    U"拉祜", U"水",   U"东乡",   U"纳西",   U"景颇",   U"柯尔克孜", U"土", U"达斡尔", U"仫佬", U"羌", U"布朗",
    U"撒拉", U"毛南", U"仡佬",   U"锡伯",   U"阿昌",   U"普米", U"塔吉克", U"怒", U"乌孜别克", U"俄罗斯", U"鄂温克",
    U"德昂", U"保安", U"裕固",   U"京",     U"塔塔尔", U"独龙", U"鄂伦春", U"赫哲", U"门巴", U"珞巴", U"基诺"};

bool ends_with(std::u32string_view s, std::u32string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "延边朝鲜族" -> "延边"; "黔东南苗族侗族" -> "黔东南"; "各族" is dropped too. Names of
// autonomous regions may omit 族 (新疆维吾尔自治区), so `autonomous` strips bare names too.
std::u32string_view strip_nationalities(std::u32string_view s, bool autonomous) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    const bool has_zu = ends_with(s, U"族");
    if (!has_zu && !autonomous) break;
    const std::u32string_view body = has_zu ? s.substr(0, s.size() - 1) : s;
    if (has_zu && ends_with(body, U"各")) {
      s = body.substr(0, body.size() - 1);
      stripped = true;
      continue;
    }
    std::size_t longest = 0;
    for (const auto nationality : kNationalities) {
      if (ends_with(body, nationality)) longest = std::max(longest, nationality.size());
    }
    if (longest > 0 && body.size() - longest >= 2) {
      s = body.substr(0, body.size() - longest);
      stripped = true;
    }
  }
  return s;
}

bool is_placeholder_name(std::u32string_view name) {
  return name == U"市辖区" || name == U"县" || ends_with(name, U"直辖县级行政区划");
}

std::optional<AdminLevel> parse_level(std::string_view text) {
  if (text == "prov") return AdminLevel::Prov;
  if (text == "city") return AdminLevel::City;
  if (text == "district") return AdminLevel::District;
  if (text == "town") return AdminLevel::Town;
  return std::nullopt;
}

}  // namespace

const char* admin_level_name(AdminLevel level) {
  constexpr std::array<const char*, kNumAdminLevels> kNames = {"prov", "city", "district", "town"};
  return kNames[static_cast<std::size_t>(level)];
}

std::vector<std::u32string> short_names(std::u32string_view name, AdminLevel level) {
  std::vector<std::u32string_view> suffixes;
  switch (level) {
    case AdminLevel::Prov: suffixes = {U"特别行政区", U"自治区", U"省", U"市"}; break;
    // 州 alone is how people write an autonomous prefecture (红河州); no city's name ends in it.
    case AdminLevel::City: suffixes = {U"自治州", U"地区", U"市", U"盟", U"州"}; break;
    case AdminLevel::District: suffixes = {U"自治县", U"自治旗", U"新区", U"区", U"县", U"市", U"旗"}; break;
    case AdminLevel::Town: suffixes = {U"街道办事处", U"街道", U"镇", U"乡", U"苏木"}; break;
  }
  std::vector<std::u32string> out;
  for (const auto suffix : suffixes) {
    if (!ends_with(name, suffix)) continue;
    const bool autonomous = suffix.substr(0, 2) == U"自治";
    const std::u32string_view stem = strip_nationalities(name.substr(0, name.size() - suffix.size()), autonomous);
    if (stem.size() >= 2) out.emplace_back(stem);
    break;
  }
  return out;
}

Gazetteer Gazetteer::load(const std::filesystem::path& tsv) {
  std::ifstream in = open_for_reading(tsv, "gazetteer");
  return parse(in, tsv.string());
}

Gazetteer Gazetteer::parse(std::istream& in, const std::string& source_name) {
  Gazetteer g;
  std::unordered_map<std::string, std::int32_t> index_of_code;
  std::vector<std::pair<std::size_t, std::string>> parent_codes;  // (line, code) per division
  // The shipped table has about 45,000 rows: growing the vectors step by step copied and
  // freshly touched twice the memory, and a page touched for the first time is costly.
  g.divisions_.reserve(kExpectedDivisions);
  parent_codes.reserve(kExpectedDivisions);
  index_of_code.reserve(kExpectedDivisions);
  // Built only for an error message: a load reads some 45,000 lines.
  auto at_line = [&](std::size_t number) { return table_place(source_name, number); };
  for_each_table_line(in, source_name, [&](std::string_view line, std::size_t line_number) {
    const auto tabs = static_cast<std::size_t>(std::count(line.begin(), line.end(), '\t'));
    if (tabs < 2 || tabs > 3) throw Error(at_line(line_number) + ": expected code<TAB>level<TAB>name<TAB>parent_code");
    std::array<std::string_view, 4> fields;  // parent_code stays empty without a fourth field
    std::string_view rest = line;
    for (std::size_t n = 0; n <= tabs; ++n) {
      const std::size_t tab = rest.find('\t');
      fields[n] = rest.substr(0, tab);
      rest.remove_prefix(tab == std::string_view::npos ? rest.size() : tab + 1);
    }
    Division d;
    d.code = fields[0];
    const auto level = parse_level(fields[1]);
    if (!level) throw Error(at_line(line_number) + ": unknown level \"" + std::string(fields[1]) + "\" (prov, city, district or town)");
    d.level = *level;
    d.name = fields[2];
    if (d.code.empty() || d.name.empty()) throw Error(at_line(line_number) + ": empty code or name");
    if (!index_of_code.emplace(d.code, static_cast<std::int32_t>(g.divisions_.size())).second) {
      throw Error(at_line(line_number) + ": duplicate code " + d.code);
    }
    if ((d.level == AdminLevel::Prov) != fields[3].empty()) {
      throw Error(at_line(line_number) + ": provinces, and only provinces, have no parent_code");
    }
    const std::u32string name = text::decode_utf8(d.name);
    d.name_length = name.size();
    d.placeholder = is_placeholder_name(name);
    parent_codes.emplace_back(line_number, fields[3]);
    g.divisions_.push_back(std::move(d));
  });
  if (g.divisions_.empty()) throw Error(source_name + ": no divisions");

  for (std::size_t i = 0; i < g.divisions_.size(); ++i) {
    const auto& [line_of_division, parent_code] = parent_codes[i];
    if (parent_code.empty()) continue;
    const auto it = index_of_code.find(parent_code);
    if (it == index_of_code.end()) throw Error(at_line(line_of_division) + ": parent_code " + parent_code + " is not in the file");
    const Division& parent = g.divisions_[static_cast<std::size_t>(it->second)];
    if (static_cast<int>(parent.level) + 1 != static_cast<int>(g.divisions_[i].level)) {
      throw Error(at_line(line_of_division) + ": parent " + parent_code + " is not one level up");
    }
    g.divisions_[i].parent = it->second;
  }
  for (std::size_t i = 0; i < g.divisions_.size(); ++i) {
    const Division& d = g.divisions_[i];
    if (d.level == AdminLevel::City && d.placeholder && d.name == "市辖区" && d.parent >= 0) {
      g.municipal_city_.emplace(d.parent, static_cast<std::int32_t>(i));
    }
  }
  g.build_trie();
  return g;
}

std::int32_t Gazetteer::municipal_city(std::int32_t prov) const {
  const auto it = municipal_city_.find(prov);
  return it == municipal_city_.end() ? -1 : it->second;
}

void Gazetteer::build_trie() {
  // (node, division) for every name, sorted into the flat lists afterwards: a list per
  // node grown as names arrived cost a small allocation for each of the trie's nodes.
  std::vector<std::pair<std::uint32_t, std::int32_t>> named;
  std::uint32_t nodes = 1;
  auto insert = [&](std::u32string_view name, std::int32_t division) {
    std::uint32_t node = 0;
    for (const char32_t c : name) {
      const auto [child, added] = edges_.emplace(edge_key(node, c), nodes);
      if (added) ++nodes;
      node = *child;
    }
    named.emplace_back(node, division);
  };
  for (std::size_t i = 0; i < divisions_.size(); ++i) {
    const Division& d = divisions_[i];
    if (d.placeholder) continue;
    const std::u32string name = text::decode_utf8(d.name);
    insert(name, static_cast<std::int32_t>(i));
    for (const auto& alias : short_names(name, d.level)) insert(alias, static_cast<std::int32_t>(i));
  }
  // A node lists its divisions in file order, each once (a short name can equal another
  // of the same division's names).
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  value_begin_.assign(std::size_t{nodes} + 1, 0);
  for (const auto& entry : named) ++value_begin_[entry.first + 1];
  std::partial_sum(value_begin_.begin(), value_begin_.end(), value_begin_.begin());
  values_.reserve(named.size());
  for (const auto& entry : named) values_.push_back(entry.second);
}

std::span<const std::int32_t> Gazetteer::node_values(std::uint32_t node) const {
  return std::span<const std::int32_t>(values_).subspan(value_begin_[node], value_begin_[node + 1] - value_begin_[node]);
}

std::span<const std::int32_t> Gazetteer::lookup(std::u32string_view name) const {
  std::uint32_t node = 0;
  for (const char32_t c : name) {
    const std::uint32_t* child = edges_.find(edge_key(node, c));
    if (!child) return {};
    node = *child;
  }
  return name.empty() ? std::span<const std::int32_t>() : node_values(node);
}

bool Gazetteer::is_ancestor_or_self(std::int32_t ancestor, std::int32_t division) const {
  for (std::int32_t d = division; d >= 0; d = divisions_[static_cast<std::size_t>(d)].parent) {
    if (d == ancestor) return true;
  }
  return false;
}

std::vector<std::int32_t> Gazetteer::chain(std::int32_t division) const {
  std::vector<std::int32_t> out;
  for (std::int32_t d = division; d >= 0; d = divisions_[static_cast<std::size_t>(d)].parent) out.push_back(d);
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace geoalign::geo
