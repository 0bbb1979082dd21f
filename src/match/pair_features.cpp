#include "match/pair_features.h"

#include <algorithm>
#include <array>
#include <set>
#include <span>
#include <string_view>

#include "match/element_coverage.h"
#include "match/remainder_measures.h"
#include "match/string_measures.h"
#include "match/weighted_measures.h"

namespace geoalign::match {

namespace {

// Compared element by element, finest last. The order also ranks granularity.
constexpr std::array<const char*, 18> kComparedTags = {
    "prov", "city",   "district", "devzone",   "town", "community", "road",   "subroad", "roadno",
    "subroadno", "poi", "subpoi", "houseno",  "cellno", "floorno",  "roomno", "person",  "assist"};
// The first 16 (prov .. roomno) name a place at some granularity; person and assist do not.
constexpr std::size_t kPlaceTags = 16;
constexpr std::array<const char*, 6> kAdminTags = {"country", "prov", "city", "district", "town", "redundant"};

template <typename Set>
float jaccard(const Set& a, const Set& b) {
  if (a.empty() && b.empty()) return -1.0f;
  std::size_t common = 0;
  for (const auto& x : a) common += b.count(x);
  return static_cast<float>(common) / static_cast<float>(a.size() + b.size() - common);
}

std::set<std::u32string> ngrams(const std::u32string& s, std::size_t n) {
  std::set<std::u32string> out;
  for (std::size_t i = 0; i + n <= s.size(); ++i) out.insert(s.substr(i, n));
  return out;
}

// LCS over the longer, LCS over the shorter, char and bigram Jaccard, containment, the
// longest common substring and it over the shorter.
void add_string_measures(const std::u32string& a, const std::u32string& b, std::vector<float>& out) {
  if (a.empty() || b.empty()) {
    out.insert(out.end(), {-1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f});
    return;
  }
  const auto lcs = static_cast<float>(lcs_length(a, b));
  out.push_back(lcs / static_cast<float>(std::max(a.size(), b.size())));
  out.push_back(lcs / static_cast<float>(std::min(a.size(), b.size())));
  out.push_back(jaccard(ngrams(a, 1), ngrams(b, 1)));
  out.push_back(jaccard(ngrams(a, 2), ngrams(b, 2)));
  out.push_back(contains(a, b) ? 1.0f : 0.0f);
  const auto common = static_cast<float>(longest_shared_run(a, b).length);
  out.push_back(common);
  out.push_back(common / static_cast<float>(std::min(a.size(), b.size())));
}

// Elements of a group compared pairwise, since an address may name two roads (at a
// crossing) or a POI and a shop inside it: is any pair equal, and the longest substring
// any pair shares.
void add_group_measures(const ParsedAddress& a, const ParsedAddress& b, std::initializer_list<std::string_view> tags,
                        std::vector<float>& out) {
  auto texts = [&](const ParsedAddress& p) {
    std::vector<std::u32string> t;
    for (const auto& e : p.elements) {
      if (std::find(tags.begin(), tags.end(), e.tag) != tags.end()) t.push_back(folded(e.text));
    }
    return t;
  };
  const auto ta = texts(a), tb = texts(b);
  if (ta.empty() || tb.empty()) {
    out.insert(out.end(), {-1.0f, -1.0f, -1.0f});
    return;
  }
  bool any_equal = false;
  std::size_t longest = 0;
  float longest_share = 0;
  for (const auto& x : ta) {
    for (const auto& y : tb) {
      any_equal = any_equal || x == y;
      const std::size_t common = longest_shared_run(x, y).length;
      longest = std::max(longest, common);
      longest_share = std::max(longest_share, static_cast<float>(common) / static_cast<float>(std::min(x.size(), y.size())));
    }
  }
  out.insert(out.end(), {any_equal ? 1.0f : 0.0f, static_cast<float>(longest), longest_share});
}

std::u32string element_text(const ParsedAddress& p, std::string_view tag) {
  std::u32string out;
  for (const auto& e : p.elements) {
    if (e.tag == tag) out += folded(e.text);
  }
  return out;
}

std::u32string digits_of(const std::u32string& s) {
  std::u32string out;
  for (const char32_t c : s) {
    if (c >= U'0' && c <= U'9') out += c;
    else if (!out.empty() && out.back() != U'.') out += U'.';
  }
  if (!out.empty() && out.back() == U'.') out.pop_back();  // 12号 and 12 name one number
  return out;
}

// The address without its administrative prefix: what names the place inside the district.
std::u32string tail_text(const ParsedAddress& p) {
  std::u32string out;
  for (const auto& e : p.elements) {
    if (std::find(kAdminTags.begin(), kAdminTags.end(), e.tag) == kAdminTags.end()) out += folded(e.text);
  }
  return out;
}

// Index of a place tag in kComparedTags (finer is larger), or -1.
long place_rank(const std::string& tag) {
  const auto end = kComparedTags.begin() + kPlaceTags;
  const auto it = std::find(kComparedTags.begin(), end, tag);
  return it == end ? -1 : it - kComparedTags.begin();
}

float granularity(const ParsedAddress& p) {
  long finest = -1;
  for (const auto& e : p.elements) finest = std::max(finest, place_rank(e.tag));
  return static_cast<float>(finest + 1);
}

// Every digit run in the text, as a set: house, building and room numbers together.
std::set<std::u32string> numbers_in(const std::u32string& s) {
  std::set<std::u32string> out;
  std::u32string run;
  for (const char32_t c : s + U' ') {
    if (c >= U'0' && c <= U'9') {
      run += c;
    } else if (!run.empty()) {
      out.insert(run);
      run.clear();
    }
  }
  return out;
}

void add_number_measures(const std::u32string& a, const std::u32string& b, std::vector<float>& out) {
  const auto na = numbers_in(a), nb = numbers_in(b);
  auto subset = [](const auto& x, const auto& y) { return std::includes(y.begin(), y.end(), x.begin(), x.end()); };
  out.push_back(static_cast<float>(na.size()));
  out.push_back(static_cast<float>(nb.size()));
  out.push_back(jaccard(na, nb));
  out.push_back(na.empty() || nb.empty() ? -1.0f : subset(na, nb) || subset(nb, na) ? 1.0f : 0.0f);
}

// The finest element of each address (by kComparedTags order), compared.
void add_finest_element(const ParsedAddress& a, const ParsedAddress& b, std::vector<float>& out) {
  auto finest = [](const ParsedAddress& p) -> const AddressElement* {
    const AddressElement* best = nullptr;
    long best_rank = -1;
    for (const auto& e : p.elements) {
      const long rank = place_rank(e.tag);
      if (rank >= 0 && rank >= best_rank) {
        best_rank = rank;
        best = &e;
      }
    }
    return best;
  };
  const AddressElement *ea = finest(a), *eb = finest(b);
  if (!ea || !eb) {
    out.insert(out.end(), {-1.0f, -1.0f, -1.0f});
    return;
  }
  const std::u32string ta = folded(ea->text), tb = folded(eb->text);
  out.push_back(ea->tag == eb->tag ? 1.0f : 0.0f);
  out.push_back(ta == tb ? 1.0f : 0.0f);
  out.push_back(static_cast<float>(lcs_length(ta, tb)) / static_cast<float>(std::max(ta.size(), tb.size())));
}

// The current codes an address's chain may have at a level: its division's, or where a
// former name left the level open (江干区: 上城区 or 钱塘区), every successor's. A former
// name with one successor (下城区) already stands as that successor (拱墅区) in the chain.
// Per pair and level on the scoring path: views, no copies.
std::span<const std::string> current_codes(const AdminChain& admin, const std::optional<AdminDivision>& division,
                                           std::string_view level) {
  if (division) return {&division->code, 1};
  for (const auto& h : admin.historical) {
    if (h.level == level) return h.now_codes;
  }
  return {};
}

// 1 when the two chains name the same current division at a level (by a current or a
// former name), 0 when they name different ones, -1 when either does not say.
float admin_agreement(const AdminChain& a, const std::optional<AdminDivision>& da, const AdminChain& b,
                      const std::optional<AdminDivision>& db, std::string_view level) {
  const auto ca = current_codes(a, da, level), cb = current_codes(b, db, level);
  if (ca.empty() || cb.empty()) return -1.0f;
  for (const auto& code : ca) {
    if (std::find(cb.begin(), cb.end(), code) != cb.end()) return 1.0f;
  }
  return 0.0f;
}

std::vector<std::string> make_names() {
  std::vector<std::string> names;
  for (const char* part : {"all", "tail"}) {
    for (const char* m : {"lcs_max", "lcs_min", "char_jaccard", "bigram_jaccard", "contains", "common_substring",
                          "common_substring_share"}) {
      names.push_back(std::string(part) + "_" + m);
    }
  }
  for (const char* n : {"len_a", "len_b", "tail_len_a", "tail_len_b", "granularity_a", "granularity_b",
                        "granularity_diff"}) {
    names.push_back(n);
  }
  for (const char* level : {"prov", "city", "district", "town"}) names.push_back(std::string("admin_same_") + level);
  for (const char* n : {"numbers_a", "numbers_b", "numbers_jaccard", "numbers_subset", "finest_same_tag",
                        "finest_equal", "finest_lcs_max"}) {
    names.push_back(n);
  }
  for (const char* group : {"roads", "places"}) {
    for (const char* m : {"any_equal", "common_substring", "common_substring_share"}) {
      names.push_back(std::string(group) + "_" + m);
    }
  }
  for (const char* tag : kComparedTags) {
    for (const char* m : {"has_a", "has_b", "equal", "lcs_max", "contains", "digits_equal"}) {
      names.push_back(std::string(tag) + "_" + m);
    }
  }
  for (const char* side : {"a_in_b", "b_in_a"}) {
    for (const char* m : {"equal_share", "found_share", "finest_found", "finest_missing", "lcs_mean"}) {
      names.push_back(std::string("elements_") + side + "_" + m);
    }
  }
  for (const char* n : {"finest_b_rank", "finest_b_in_a", "finest_a_rank", "finest_a_in_b"}) names.push_back(n);
  for (const char* part : {"all", "tail"}) {
    for (const char* m : {"idf_char_cosine", "idf_bigram_cosine"}) names.push_back(std::string(part) + "_" + m);
  }
  for (const char* gram : {"char", "bigram"}) {
    for (const char* side : {"a_in_b", "b_in_a"}) {
      for (const char* m : {"share", "missing"}) names.push_back(std::string("idf_") + gram + "_" + side + "_" + m);
    }
  }
  for (const char* n : {"idf_lcs_share_a", "idf_lcs_share_b"}) names.push_back(n);
  for (const char* n : {"shared_run_after_a", "shared_run_after_b", "shared_run_after_b_trunk", "direction_words_b",
                        "unit_words_a", "unit_words_b", "chars_only_in_b", "digits_only_in_b", "chars_only_in_a",
                        "digits_only_in_a"}) {
    names.push_back(n);
  }
  return names;
}

}  // namespace

const std::vector<std::string>& pair_feature_names() {
  static const std::vector<std::string> names = make_names();
  return names;
}

std::string_view compared_prefix(std::string_view utf8) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    // A code point starts at every byte that is not a continuation byte (10xxxxxx).
    if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80 && chars++ == kMaxComparedChars) return utf8.substr(0, i);
  }
  return utf8;
}

std::vector<float> pair_features(const ParsedAddress& a, const ParsedAddress& b, const TermWeights& weights) {
  std::vector<float> out;
  out.reserve(pair_feature_names().size());
  const std::u32string fa = folded(a.text), fb = folded(b.text);
  const std::u32string ta = tail_text(a), tb = tail_text(b);
  add_string_measures(fa, fb, out);
  add_string_measures(ta, tb, out);
  const float ga = granularity(a), gb = granularity(b);
  out.insert(out.end(), {static_cast<float>(fa.size()), static_cast<float>(fb.size()), static_cast<float>(ta.size()),
                         static_cast<float>(tb.size()), ga, gb, ga - gb});
  out.push_back(admin_agreement(a.admin, a.admin.prov, b.admin, b.admin.prov, "prov"));
  out.push_back(admin_agreement(a.admin, a.admin.city, b.admin, b.admin.city, "city"));
  out.push_back(admin_agreement(a.admin, a.admin.district, b.admin, b.admin.district, "district"));
  out.push_back(admin_agreement(a.admin, a.admin.town, b.admin, b.admin.town, "town"));
  add_number_measures(fa, fb, out);
  add_finest_element(a, b, out);
  add_group_measures(a, b, {"road", "subroad"}, out);
  add_group_measures(a, b, {"poi", "subpoi", "community", "devzone", "person"}, out);
  for (const char* tag : kComparedTags) {
    const std::u32string ea = element_text(a, tag), eb = element_text(b, tag);
    const bool both = !ea.empty() && !eb.empty();
    out.push_back(ea.empty() ? 0.0f : 1.0f);
    out.push_back(eb.empty() ? 0.0f : 1.0f);
    out.push_back(both ? (ea == eb ? 1.0f : 0.0f) : -1.0f);
    out.push_back(both ? static_cast<float>(lcs_length(ea, eb)) / static_cast<float>(std::max(ea.size(), eb.size()))
                       : -1.0f);
    out.push_back(both ? (contains(ea, eb) ? 1.0f : 0.0f) : -1.0f);
    const std::u32string da = digits_of(ea), db = digits_of(eb);
    out.push_back(both && !da.empty() && !db.empty() ? (da == db ? 1.0f : 0.0f) : -1.0f);
  }
  const std::u32string ua = unify_building_words(fa), ub = unify_building_words(fb);
  add_element_coverage(a, b, ua, ub, out);
  add_weighted_cosines(fa, fb, weights, out);
  add_weighted_cosines(ta, tb, weights, out);
  add_weighted_coverage(fa, fb, weights, out);
  add_remainder_measures(fa, fb, ua, ub, out);
  return out;
}

}  // namespace geoalign::match
