#include "geo/historical.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>

#include "common/open_file.h"
#include "geo/table_lines.h"
#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::geo {

namespace {

constexpr std::size_t kColumns = 6;

std::optional<AdminLevel> parse_level(std::string_view text) {
  if (text == "city") return AdminLevel::City;
  if (text == "district") return AdminLevel::District;
  if (text == "town") return AdminLevel::Town;
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

}  // namespace

HistoricalDivisions HistoricalDivisions::load(const std::filesystem::path& tsv, const Gazetteer& current) {
  std::ifstream in = open_for_reading(tsv, "historical divisions");
  return parse(in, tsv.string(), current);
}

HistoricalDivisions HistoricalDivisions::parse(std::istream& in, const std::string& source_name,
                                               const Gazetteer& current) {
  std::unordered_map<std::string, std::int32_t> current_index;
  current_index.reserve(current.divisions().size());
  for (std::size_t i = 0; i < current.divisions().size(); ++i) {
    current_index.emplace(current.divisions()[i].code, static_cast<std::int32_t>(i));
  }
  auto at_line = [&](std::size_t number) { return table_place(source_name, number); };

  HistoricalDivisions h;
  std::vector<std::size_t> lines;  // the line of each row, for the parent check
  std::unordered_map<std::string, std::vector<std::int32_t>> rows_of_code;
  for_each_table_line(in, source_name, [&](std::string_view line, std::size_t line_number) {
    const auto fields = split(line, '\t');
    if (fields.size() < kColumns) {
      throw Error(at_line(line_number) + ": expected code<TAB>level<TAB>name<TAB>parent_code<TAB>until_year<TAB>successor_codes");
    }
    FormerDivision d;
    d.code = fields[0];
    d.name = fields[2];
    d.parent_code = fields[3];
    if (d.code.empty() || d.name.empty() || d.parent_code.empty()) {
      throw Error(at_line(line_number) + ": empty code, name or parent_code");
    }
    const auto level = parse_level(fields[1]);
    if (!level) throw Error(at_line(line_number) + ": unknown level \"" + std::string(fields[1]) + "\" (city, district or town)");
    d.level = *level;
    const std::string_view year = fields[4];
    const auto [end, ec] = std::from_chars(year.data(), year.data() + year.size(), d.until_year);
    if (ec != std::errc() || end != year.data() + year.size() || d.until_year < 1949 || d.until_year > 2100) {
      throw Error(at_line(line_number) + ": until_year \"" + std::string(year) + "\" is not a year");
    }
    if (fields[5].empty()) throw Error(at_line(line_number) + ": no successor_codes");
    const auto groups = split(fields[5], '|');
    if (groups[0].empty() || groups.size() > 2 || (groups.size() == 2 && groups[1].empty())) {
      throw Error(at_line(line_number) + ": successor_codes \"" + std::string(fields[5]) +
                  "\" is not codes[|partial codes]");
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (const auto code : split(groups[g], ',')) {
        const auto it = current_index.find(std::string(code));
        if (it == current_index.end()) {
          throw Error(at_line(line_number) + ": successor \"" + std::string(code) + "\" is not a current division");
        }
        const auto listed = [&](const std::vector<std::int32_t>& v) { return std::find(v.begin(), v.end(), it->second) != v.end(); };
        if (listed(d.successors) || listed(d.partial_successors)) {
          throw Error(at_line(line_number) + ": successor " + std::string(code) + " listed twice");
        }
        (g == 0 ? d.successors : d.partial_successors).push_back(it->second);
      }
    }
    if (const auto it = current_index.find(d.code); it != current_index.end() && current.division(it->second).name == d.name) {
      if (d.successors != std::vector<std::int32_t>{it->second}) {
        throw Error(at_line(line_number) + ": " + d.code + " " + d.name +
                    " is a current division: its only successor must be itself (and the counties it ceded towns to after '|')");
      }
      d.earlier_extent = true;
    }
    auto& same_code = rows_of_code[d.code];
    for (const auto other : same_code) {
      if (h.divisions_[static_cast<std::size_t>(other)].name == d.name) {
        throw Error(at_line(line_number) + ": duplicate " + d.code + " " + d.name);
      }
    }
    same_code.push_back(static_cast<std::int32_t>(h.divisions_.size()));
    lines.push_back(line_number);
    h.divisions_.push_back(std::move(d));
  });

  // Parents: a current division one level up, or a former one (巢湖市, the prefecture
  // abolished in 2011, for its 居巢区).
  for (std::size_t i = 0; i < h.divisions_.size(); ++i) {
    FormerDivision& d = h.divisions_[i];
    const int parent_level = static_cast<int>(d.level) - 1;
    if (const auto it = current_index.find(d.parent_code); it != current_index.end()) {
      if (static_cast<int>(current.division(it->second).level) != parent_level) {
        throw Error(at_line(lines[i]) + ": parent " + d.parent_code + " is not one level up");
      }
      d.parent = it->second;
      continue;
    }
    const auto former = rows_of_code.find(d.parent_code);
    const bool one_up = former != rows_of_code.end() && std::any_of(former->second.begin(), former->second.end(), [&](std::int32_t p) {
      return static_cast<int>(h.divisions_[static_cast<std::size_t>(p)].level) == parent_level;
    });
    if (!one_up) throw Error(at_line(lines[i]) + ": parent_code " + d.parent_code + " is neither a current division nor a row one level up");
  }

  // The tagger's trie: full names that are not current names as well (沙县, now 沙县区's
  // short name; 巢湖市, now a county-level city), whose features the tagger has already.
  std::vector<std::vector<std::int32_t>> node_divisions(1);
  for (std::size_t i = 0; i < h.divisions_.size(); ++i) {
    const std::u32string name = text::decode_utf8(h.divisions_[i].name);
    if (!current.lookup(name).empty()) continue;
    std::uint32_t node = 0;
    for (const char32_t c : name) {
      const auto [child, added] = h.edges_.emplace((std::uint64_t{node} << 21) | c, static_cast<std::uint32_t>(node_divisions.size()));
      if (added) node_divisions.emplace_back();
      node = *child;
    }
    node_divisions[node].push_back(static_cast<std::int32_t>(i));
  }
  h.value_begin_.clear();
  for (const auto& list : node_divisions) {
    h.value_begin_.push_back(static_cast<std::uint32_t>(h.values_.size()));
    h.values_.insert(h.values_.end(), list.begin(), list.end());
  }
  h.value_begin_.push_back(static_cast<std::uint32_t>(h.values_.size()));

  for (std::size_t i = 0; i < h.divisions_.size(); ++i) {
    const FormerDivision& d = h.divisions_[i];
    const std::u32string name = text::decode_utf8(d.name);
    std::vector<std::u32string> names = short_names(name, d.level);
    names.push_back(name);
    for (const auto& n : names) {
      auto& list = h.by_name_[n];
      if (std::find(list.begin(), list.end(), static_cast<std::int32_t>(i)) == list.end()) {
        list.push_back(static_cast<std::int32_t>(i));
      }
    }
  }
  return h;
}

std::span<const std::int32_t> HistoricalDivisions::lookup(std::u32string_view name) const {
  const auto it = by_name_.find(std::u32string(name));
  if (it == by_name_.end()) return {};
  return it->second;
}

}  // namespace geoalign::geo
