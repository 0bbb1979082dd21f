#include "match/compared_address.h"

#include <algorithm>
#include <string_view>

#include "match/string_measures.h"

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

// Every digit run in the text: house, building and room numbers together.
std::vector<std::u32string> numbers_in(const std::u32string& s) {
  std::vector<std::u32string> out;
  std::u32string run;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] >= U'0' && s[i] <= U'9') {
      run += s[i];
    } else if (!run.empty()) {
      out.push_back(run);
      run.clear();
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

ComparedAddress compared_address(const ParsedAddress& p, const TermWeights& weights) {
  ComparedAddress c;
  c.admin = &p.admin;
  c.all = folded(p.text);
  std::vector<std::u32string> element_texts;
  element_texts.reserve(p.elements.size());
  long finest = -1;
  for (const auto& e : p.elements) {
    const std::u32string& text = element_texts.emplace_back(folded(e.text));
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
  c.numbers = numbers_in(c.all);
  c.inner = inner_elements(p, element_texts);
  return c;
}

}  // namespace geoalign::match
