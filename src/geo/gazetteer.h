#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "geo/flat_u64_map.h"

namespace geoalign::geo {

enum class AdminLevel : std::uint8_t { Prov, City, District, Town };
inline constexpr std::size_t kNumAdminLevels = 4;
const char* admin_level_name(AdminLevel level);

struct Division {
  std::string code;
  std::string name;
  std::size_t name_length = 0;  // in code points
  AdminLevel level = AdminLevel::Prov;
  std::int32_t parent = -1;  // index into Gazetteer::divisions(), -1 for provinces
  // "市辖区" and the like: a level that exists in the code tree but is not a place name.
  bool placeholder = false;
};

// China's administrative divisions down to towns and streets (the vendored
// divisions.tsv), with every full name and common short name ("朝阳区" and "朝阳",
// "广西壮族自治区" and "广西") in one code-point trie.
class Gazetteer {
 public:
  // Rows "code<TAB>level<TAB>name<TAB>parent_code"; '#' lines are comments. Throws Error
  // naming the source and line for malformed rows, unknown levels and dangling parents.
  static Gazetteer load(const std::filesystem::path& tsv);
  static Gazetteer parse(std::istream& in, const std::string& source_name);

  const std::vector<Division>& divisions() const { return divisions_; }
  const Division& division(std::int32_t index) const { return divisions_[static_cast<std::size_t>(index)]; }

  // Divisions whose full name or short name is exactly `name`.
  std::span<const std::int32_t> lookup(std::u32string_view name) const;

  // Walks the trie along `name`, calling found(length, divisions) for every prefix that
  // is a name. Returns when the trie has no continuation.
  template <typename Found>
  void prefixes(std::u32string_view name, Found&& found) const {
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
      const std::uint32_t* child = edges_.find(edge_key(node, name[i]));
      if (!child) return;
      node = *child;
      const auto values = node_values(node);
      if (!values.empty()) found(i + 1, values);
    }
  }

  bool is_ancestor_or_self(std::int32_t ancestor, std::int32_t division) const;
  // A municipality's city level (its 市辖区 placeholder), or -1 for a province that is no
  // municipality.
  std::int32_t municipal_city(std::int32_t prov) const;
  // Root-first: province, city, district, town (as deep as `division` goes).
  std::vector<std::int32_t> chain(std::int32_t division) const;

 private:
  static std::uint64_t edge_key(std::uint32_t node, char32_t c) { return (std::uint64_t{node} << 21) | c; }
  std::span<const std::int32_t> node_values(std::uint32_t node) const;
  void build_trie();

  std::vector<Division> divisions_;
  std::unordered_map<std::int32_t, std::int32_t> municipal_city_;  // province -> its 市辖区
  FlatU64Map<std::uint32_t> edges_;
  // Divisions named at each trie node, flattened: values_[value_begin_[n] .. value_begin_[n+1]).
  std::vector<std::uint32_t> value_begin_;
  std::vector<std::int32_t> values_;
};

// The short names people write for a division: 北京市->北京, 广西壮族自治区->广西,
// 延边朝鲜族自治州->延边, 五常街道->五常. Never shorter than two characters.
std::vector<std::u32string> short_names(std::u32string_view name, AdminLevel level);

}  // namespace geoalign::geo
