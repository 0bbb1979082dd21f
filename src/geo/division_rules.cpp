#include "geo/division_rules.h"

#include <algorithm>
#include <iterator>

#include "geo/address_tokens.h"
#include "text/utf8.h"

namespace geoalign::geo {

namespace {

bool is_admin_tag(const std::string& tag) {
  return tag == "country" || tag == "prov" || tag == "city" || tag == "district" || tag == "town";
}

struct Piece {
  std::size_t start = 0, end = 0;  // code points in the address
  std::vector<std::int32_t> divisions;  // above the towns, shallowest first
};

std::vector<std::int32_t> divisions_named(const Gazetteer& gazetteer, std::u32string_view name) {
  std::vector<std::int32_t> out;
  for (const std::int32_t d : gazetteer.lookup(name)) {
    const Division& division = gazetteer.division(d);
    if (division.level != AdminLevel::Town && !division.placeholder) out.push_back(d);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::int32_t a, std::int32_t b) {
    return gazetteer.division(a).level < gazetteer.division(b).level;
  });
  return out;
}

// text[begin, end) cut into division names wholly, fewest pieces first (北京市, not 北京 + 市),
// or nothing when it cannot be.
std::vector<Piece> split_into_names(const Gazetteer& gazetteer, std::u32string_view text, std::size_t begin,
                                    std::size_t end) {
  const std::u32string_view span = text.substr(begin, end - begin);
  constexpr std::size_t kNoSplit = static_cast<std::size_t>(-1);
  // fewest[i]: fewest names covering span[i..); next[i]: where the first of them ends.
  std::vector<std::size_t> fewest(span.size() + 1, kNoSplit), next(span.size() + 1, 0);
  fewest[span.size()] = 0;
  for (std::size_t i = span.size(); i-- > 0;) {
    gazetteer.prefixes(span.substr(i), [&](std::size_t length, auto) {
      if (fewest[i + length] == kNoSplit || fewest[i + length] + 1 >= fewest[i]) return;
      if (divisions_named(gazetteer, span.substr(i, length)).empty()) return;
      fewest[i] = fewest[i + length] + 1;
      next[i] = i + length;
    });
  }
  std::vector<Piece> pieces;
  if (fewest[0] == kNoSplit) return pieces;
  for (std::size_t i = 0; i < span.size(); i = next[i]) {
    pieces.push_back({begin + i, begin + next[i], divisions_named(gazetteer, span.substr(i, next[i] - i))});
  }
  return pieces;
}

// One division per piece, all on one line of descent (南京 and 鼓楼: 南京市 and its 鼓楼区),
// or nothing when the names cannot be one place (广南 and 商城: two counties).
bool one_place(const Gazetteer& gazetteer, const std::vector<Piece>& pieces, std::vector<std::int32_t>& chosen) {
  const std::size_t k = chosen.size();
  if (k == pieces.size()) return true;
  for (const std::int32_t d : pieces[k].divisions) {
    bool fits = true;
    for (const std::int32_t c : chosen) {
      fits = fits && (gazetteer.is_ancestor_or_self(c, d) || gazetteer.is_ancestor_or_self(d, c));
    }
    if (!fits) continue;
    chosen.push_back(d);
    if (one_place(gazetteer, pieces, chosen)) return true;
    chosen.pop_back();
  }
  return false;
}

// A district of the province `prov` that lies under its 市辖区 (or 重庆's 县): so the
// province is a municipality. Not under 省直辖县级行政区划, the placeholder holding 湖北's 天门
// and 潜江, whose province is no city.
bool municipal_district(const Gazetteer& g, std::int32_t district, std::int32_t prov) {
  const Division& d = g.division(district);
  if (d.level != AdminLevel::District || d.parent < 0) return false;
  const Division& city = g.division(d.parent);
  return city.placeholder && city.parent == prov && (city.name == "市辖区" || city.name == "县");
}

bool names_municipal_district(const Gazetteer& g, const AddressElement& e, std::int32_t prov) {
  const auto found = g.lookup(text::decode_utf8(e.text));
  return std::any_of(found.begin(), found.end(), [&](std::int32_t d) { return municipal_district(g, d, prov); });
}

}  // namespace

void tag_municipality_as_city(std::vector<AddressElement>& elements, const Gazetteer& gazetteer) {
  const auto first = std::find_if(elements.begin(), elements.end(), [](const auto& e) { return e.tag == "prov"; });
  if (first == elements.end()) return;
  const auto next = std::find_if(first + 1, elements.end(), [](const auto& e) { return !separates_elements(e); });
  if (next == elements.end() || (next->tag != "district" && next->tag != "city")) return;
  // 上海/prov 上海市/city 浦东新区/district stays: the only city element may be the district.
  const auto cities = std::count_if(elements.begin(), elements.end(), [](const auto& e) { return e.tag == "city"; });
  if (cities > (next->tag == "city" ? 1 : 0)) return;
  for (const std::int32_t prov : gazetteer.lookup(text::decode_utf8(first->text))) {
    if (gazetteer.division(prov).level == AdminLevel::Prov && names_municipal_district(gazetteer, *next, prov)) {
      first->tag = "city";
      next->tag = "district";
      return;
    }
  }
}

void tag_leading_country(std::vector<AddressElement>& elements) {
  const auto first = std::find_if(elements.begin(), elements.end(), [](const auto& e) { return !separates_elements(e); });
  if (first != elements.end() && (first->text == "中国" || first->text == "中华人民共和国")) first->tag = "country";
}

std::size_t leading_country(std::u32string_view text, const Gazetteer& gazetteer) {
  for (const std::u32string_view country : {std::u32string_view(U"中华人民共和国"), std::u32string_view(U"中国")}) {
    if (!text.starts_with(country)) continue;
    // A full name only: short ones begin company names (中国平安, 中国南山开发, 中国东方航空).
    bool division = false;
    gazetteer.prefixes(text.substr(country.size()), [&](std::size_t length, std::span<const std::int32_t> found) {
      for (const std::int32_t d : found) {
        const Division& named = gazetteer.division(d);
        if (length == named.name_length && named.level != AdminLevel::Town && !named.placeholder) division = true;
      }
    });
    return division ? country.size() : 0;
  }
  return 0;
}

void retag_trailing_divisions(std::vector<AddressElement>& elements, std::u32string_view text,
                              const Gazetteer& gazetteer) {
  // A name the tagger calls redundant that an admin element before it already wrote is the
  // repetition it says (遂昌县遂昌县新路湾镇), not a division written last.
  auto stays = [&](std::size_t i) {
    const AddressElement& e = elements[i];
    if (separates_elements(e) || is_admin_tag(e.tag)) return true;
    return e.tag == "redundant" && std::any_of(elements.begin(), elements.begin() + static_cast<std::ptrdiff_t>(i),
                                               [&](const auto& before) { return is_admin_tag(before.tag) && before.text == e.text; });
  };
  // Back to front: the elements of the tail that stay as they are (brackets, divisions the
  // tagger found, repetitions) and those to read as division names.
  std::vector<Piece> pieces;
  std::vector<char> kept(elements.size());
  std::size_t first = elements.size();
  while (first > 0) {
    const AddressElement& e = elements[first - 1];
    kept[first - 1] = stays(first - 1);
    if (!kept[first - 1]) {
      const auto names = split_into_names(gazetteer, text, e.start, e.end);
      if (names.empty()) break;
      pieces.insert(pieces.begin(), names.begin(), names.end());
    }
    --first;
  }
  constexpr std::size_t kMostNames = 4;
  // An address of nothing but division names keeps the tagger's reading, unless that
  // reading names no division at all.
  const bool whole = first == 0;
  if (whole && std::any_of(elements.begin(), elements.end(), [](const auto& e) { return is_admin_tag(e.tag); })) return;
  if (pieces.empty() || pieces.size() > kMostNames) return;
  std::vector<std::int32_t> chosen;
  if (!one_place(gazetteer, pieces, chosen)) return;
  // A short district name alone is too often a part of an estate (东区, 西区) or a shop's
  // branch: the tail must name a province or city, or a district in full, 铜山区 not 铜山.
  bool names_a_place = false;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Division& d = gazetteer.division(chosen[i]);
    const bool full_name = text::encode_utf8(text.substr(pieces[i].start, pieces[i].end - pieces[i].start)) == d.name;
    names_a_place = names_a_place || d.level <= AdminLevel::City || (full_name && d.name_length >= 3);
  }
  if (!names_a_place) return;
  std::vector<AddressElement> tail(std::make_move_iterator(elements.begin() + static_cast<std::ptrdiff_t>(first)),
                                   std::make_move_iterator(elements.end()));
  elements.resize(first);
  std::size_t next_piece = 0;
  for (std::size_t i = first; i < first + tail.size(); ++i) {
    AddressElement& e = tail[i - first];
    if (kept[i]) {
      elements.push_back(std::move(e));
      continue;
    }
    for (; next_piece < pieces.size() && pieces[next_piece].end <= e.end; ++next_piece) {
      const Piece& p = pieces[next_piece];
      elements.push_back({.tag = admin_level_name(gazetteer.division(chosen[next_piece]).level),
                          .text = text::encode_utf8(text.substr(p.start, p.end - p.start)),
                          .start = p.start,
                          .end = p.end});
    }
  }
}

}  // namespace geoalign::geo
