#include "match/pair_features.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string_view>

#include "match/element_coverage.h"
#include "match/remainder_measures.h"
#include "match/string_measures.h"
#include "match/weighted_measures.h"

namespace geoalign::match {

namespace {

// Jaccard of the distinct grams (a weighted gram list's runs).
float jaccard(const WeightedGrams& a, const WeightedGrams& b) {
  if (a.runs.empty() && b.runs.empty()) return -1.0f;
  const std::size_t common = shared_grams(a, b);
  return static_cast<float>(common) / static_cast<float>(a.runs.size() + b.runs.size() - common);
}

float jaccard(const std::vector<std::u32string>& a, const std::vector<std::u32string>& b) {
  if (a.empty() && b.empty()) return -1.0f;
  std::vector<std::u32string> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  return static_cast<float>(common.size()) / static_cast<float>(a.size() + b.size() - common.size());
}

// LCS over the longer, LCS over the shorter, char and bigram Jaccard, containment, the
// longest common substring and it over the shorter.
void add_string_measures(const std::u32string& a, const WeightedText& wa, const std::u32string& b,
                         const WeightedText& wb, std::vector<float>& out) {
  if (a.empty() || b.empty()) {
    out.insert(out.end(), {-1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f});
    return;
  }
  const auto lcs = static_cast<float>(lcs_length(a, b));
  out.push_back(lcs / static_cast<float>(std::max(a.size(), b.size())));
  out.push_back(lcs / static_cast<float>(std::min(a.size(), b.size())));
  out.push_back(jaccard(wa.grams[0], wb.grams[0]));
  out.push_back(jaccard(wa.grams[1], wb.grams[1]));
  out.push_back(contains(a, b) ? 1.0f : 0.0f);
  const auto common = static_cast<float>(longest_shared_run(a, b).length);
  out.push_back(common);
  out.push_back(common / static_cast<float>(std::min(a.size(), b.size())));
}

// Elements of a group compared pairwise, since an address may name two roads (at a
// crossing) or a POI and a shop inside it: is any pair equal, and the longest substring
// any pair shares.
void add_group_measures(const std::vector<std::u32string>& ta, const std::vector<std::u32string>& tb,
                        std::vector<float>& out) {
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

void add_number_measures(const ComparedAddress& a, const ComparedAddress& b, std::vector<float>& out) {
  const auto &na = a.numbers, &nb = b.numbers;
  auto subset = [](const auto& x, const auto& y) { return std::includes(y.begin(), y.end(), x.begin(), x.end()); };
  out.push_back(static_cast<float>(na.size()));
  out.push_back(static_cast<float>(nb.size()));
  out.push_back(jaccard(na, nb));
  out.push_back(na.empty() || nb.empty() ? -1.0f : subset(na, nb) || subset(nb, na) ? 1.0f : 0.0f);
}

// The finest element of each address (by kComparedTags order), compared.
void add_finest_element(const ComparedAddress& a, const ComparedAddress& b, std::vector<float>& out) {
  if (a.finest_rank < 0 || b.finest_rank < 0) {
    out.insert(out.end(), {-1.0f, -1.0f, -1.0f});
    return;
  }
  const std::u32string &ta = a.finest_text, &tb = b.finest_text;
  out.push_back(a.finest_rank == b.finest_rank ? 1.0f : 0.0f);  // a rank is one tag
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

std::vector<float> pair_features(const ComparedAddress& a, const ComparedAddress& b) {
  std::vector<float> out;
  out.reserve(pair_feature_names().size());
  const std::u32string &fa = a.all, &fb = b.all, &ta = a.tail, &tb = b.tail;
  add_string_measures(fa, a.all_weighted, fb, b.all_weighted, out);
  add_string_measures(ta, a.tail_weighted, tb, b.tail_weighted, out);
  const float ga = a.granularity, gb = b.granularity;
  out.insert(out.end(), {static_cast<float>(fa.size()), static_cast<float>(fb.size()), static_cast<float>(ta.size()),
                         static_cast<float>(tb.size()), ga, gb, ga - gb});
  const AdminChain &ca = *a.admin, &cb = *b.admin;
  out.push_back(admin_agreement(ca, ca.prov, cb, cb.prov, "prov"));
  out.push_back(admin_agreement(ca, ca.city, cb, cb.city, "city"));
  out.push_back(admin_agreement(ca, ca.district, cb, cb.district, "district"));
  out.push_back(admin_agreement(ca, ca.town, cb, cb.town, "town"));
  add_number_measures(a, b, out);
  add_finest_element(a, b, out);
  add_group_measures(a.roads, b.roads, out);
  add_group_measures(a.places, b.places, out);
  for (std::size_t t = 0; t < kComparedTags.size(); ++t) {
    const std::u32string &ea = a.tag_text[t], &eb = b.tag_text[t];
    const bool both = !ea.empty() && !eb.empty();
    out.push_back(ea.empty() ? 0.0f : 1.0f);
    out.push_back(eb.empty() ? 0.0f : 1.0f);
    out.push_back(both ? (ea == eb ? 1.0f : 0.0f) : -1.0f);
    out.push_back(both ? static_cast<float>(lcs_length(ea, eb)) / static_cast<float>(std::max(ea.size(), eb.size()))
                       : -1.0f);
    out.push_back(both ? (contains(ea, eb) ? 1.0f : 0.0f) : -1.0f);
    const std::u32string &da = a.tag_digits[t], &db = b.tag_digits[t];
    out.push_back(both && !da.empty() && !db.empty() ? (da == db ? 1.0f : 0.0f) : -1.0f);
  }
  add_element_coverage(a.inner, a.unified, b.inner, b.unified, out);
  add_weighted_cosines(a.all_weighted, b.all_weighted, out);
  add_weighted_cosines(a.tail_weighted, b.tail_weighted, out);
  add_weighted_coverage(fa, a.all_weighted, fb, b.all_weighted, out);
  add_remainder_measures(fa, fb, a.unified, b.unified, out);
  return out;
}

std::vector<float> pair_features(const ParsedAddress& a, const ParsedAddress& b, const TermWeights& weights) {
  return pair_features(compared_address(a, weights), compared_address(b, weights));
}

}  // namespace geoalign::match
