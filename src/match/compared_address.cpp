#include "match/compared_address.h"

#include <algorithm>
#include <string_view>

#include "geo/address_tokens.h"
#include "match/string_measures.h"
#include "text/utf8.h"

namespace geoalign::match {

namespace {

constexpr std::array<std::string_view, 6> kAdminTags = {"country", "prov", "city", "district", "town", "redundant"};
constexpr std::array<std::string_view, 2> kRoadTags = {"road", "subroad"};
constexpr std::array<std::string_view, 5> kPlaceGroupTags = {"poi", "subpoi", "community", "devzone", "person"};

template <typename Tags>
bool one_of(const Tags& tags, std::string_view tag) {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

// Index of a place tag in kComparedTags (finer is larger), or -1.
long place_rank(std::string_view tag) {
  const auto end = kComparedTags.begin() + kPlaceTags;
  const auto it = std::find(kComparedTags.begin(), end, tag);
  return it == end ? -1 : it - kComparedTags.begin();
}

// The digits of an element, runs joined by dots: 12号 and 12 name one number.
std::u32string digits_of(const std::u32string& s) {
  std::u32string out;
  for (const char32_t c : s) {
    if (c >= U'0' && c <= U'9') out += c;
    else if (!out.empty() && out.back() != U'.') out += U'.';
  }
  if (!out.empty() && out.back() == U'.') out.pop_back();
  return out;
}

// Every digit run in the text, appended: house, building and room numbers together.
void append_numbers(const std::u32string& s, std::vector<std::u32string>& out) {
  std::u32string run;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] >= U'0' && s[i] <= U'9') {
      run += s[i];
    } else if (!run.empty()) {
      out.push_back(without_leading_zeros(std::move(run)));
      run.clear();
    }
  }
}

// Elements that name something: a Chinese numeral in them is part of the name (文三路,
// 四季青街道, 五常), not a house or building number.
bool names_a_place(std::string_view tag) {
  return one_of(kAdminTags, tag) || one_of(kRoadTags, tag) || one_of(kPlaceGroupTags, tag);
}

// Where an admin tag ranks when the divisions are written first; -1 for other tags.
int division_rank(std::string_view tag) {
  constexpr std::array<std::string_view, 5> kLevels = {"country", "prov", "city", "district", "town"};
  const auto it = std::find(kLevels.begin(), kLevels.end(), tag);
  return it == kLevels.end() ? -1 : static_cast<int>(it - kLevels.begin());
}

// The text with its divisions written first, as nearly every address writes them: the
// string measures read a name left after the shared run as a place of its own, so
// 文三路478号(杭州) and 建国路88号朝阳区北京市 are compared as 杭州文三路478号 and
// 北京市朝阳区建国路88号. Any element that is no division counts as the start of the rest
// (苏州市工业园区娄葑街道… is compared as 苏州市娄葑街道工业园区…; the heads were trained so).
// The text itself where no division follows such an element.
std::string divisions_first(const ParsedAddress& p) {
  const auto& el = p.elements;
  const auto first_place = std::find_if(el.begin(), el.end(), [](const AddressElement& e) {
    return division_rank(e.tag) < 0 && e.tag != "redundant";
  });
  const bool late = std::any_of(first_place, el.end(), [](const AddressElement& e) { return division_rank(e.tag) >= 0; });
  if (!late) return p.text;
  std::vector<const AddressElement*> divisions;
  for (const auto& e : el) {
    if (division_rank(e.tag) >= 0) divisions.push_back(&e);
  }
  std::stable_sort(divisions.begin(), divisions.end(), [](const AddressElement* a, const AddressElement* b) {
    return division_rank(a->tag) < division_rank(b->tag);
  });
  std::string out;
  for (const AddressElement* d : divisions) out += d->text;
  // The rest from the first place element on, less the divisions and the brackets and list
  // marks beside them (文三路478号(杭州) leaves no empty brackets).
  const std::u32string text = text::decode_utf8(p.text);
  std::vector<bool> dropped(text.size(), false);
  const auto begin = static_cast<std::size_t>(first_place - el.begin());
  for (std::size_t i = begin; i < el.size(); ++i) {
    const bool beside_division = (i > begin && division_rank(el[i - 1].tag) >= 0) ||
                                 (i + 1 < el.size() && division_rank(el[i + 1].tag) >= 0);
    if (division_rank(el[i].tag) >= 0 || (geo::separates_elements(el[i]) && beside_division)) {
      std::fill(dropped.begin() + static_cast<std::ptrdiff_t>(el[i].start),
                dropped.begin() + static_cast<std::ptrdiff_t>(el[i].end), true);
    }
  }
  std::u32string rest;
  for (std::size_t c = first_place->start; c < text.size(); ++c) {
    if (!dropped[c]) rest += text[c];
  }
  return out + text::encode_utf8(rest);
}

}  // namespace

ComparedAddress compared_address(const ParsedAddress& p, const TermWeights& weights) {
  ComparedAddress c;
  c.admin = &p.admin;
  c.all = folded(divisions_first(p));
  std::vector<std::u32string> element_texts;
  element_texts.reserve(p.elements.size());
  long finest = -1;
  for (const auto& e : p.elements) {
    const std::u32string letters = folded_letters(e.text);
    const std::u32string& text = element_texts.emplace_back(with_arabic_numerals(letters));
    append_numbers(names_a_place(e.tag) ? letters : text, c.numbers);
    if (!one_of(kAdminTags, e.tag)) c.tail += text;
    if (one_of(kRoadTags, e.tag)) c.roads.push_back(text);
    if (one_of(kPlaceGroupTags, e.tag)) c.places.push_back(text);
    const auto tag = std::find(kComparedTags.begin(), kComparedTags.end(), e.tag);
    if (tag != kComparedTags.end()) c.tag_text[static_cast<std::size_t>(tag - kComparedTags.begin())] += text;
    const long rank = place_rank(e.tag);
    if (rank >= 0 && rank >= finest) {
      finest = rank;
      c.finest_text = text;
    }
  }
  c.finest_rank = finest;
  c.granularity = static_cast<float>(finest + 1);
  for (std::size_t t = 0; t < kComparedTags.size(); ++t) c.tag_digits[t] = digits_of(c.tag_text[t]);
  c.unified = unify_building_words(c.all);
  c.all_weighted = weighted_text(c.all, weights);
  c.tail_weighted = weighted_text(c.tail, weights);
  std::sort(c.numbers.begin(), c.numbers.end());
  c.numbers.erase(std::unique(c.numbers.begin(), c.numbers.end()), c.numbers.end());
  c.inner = inner_elements(p, element_texts);
  return c;
}

}  // namespace geoalign::match
