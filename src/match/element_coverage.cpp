#include "match/element_coverage.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "match/string_measures.h"

namespace geoalign::match {

namespace {

constexpr std::array<std::string_view, 12> kInnerTags = {"devzone", "community", "road",    "subroad",
                                                         "roadno",  "subroadno", "poi",     "subpoi",
                                                         "houseno", "cellno",    "floorno", "roomno"};

// Views the unified text the caller owns for the whole pair.
struct Side {
  std::span<const InnerElement> elements;
  std::u32string_view text;
};

void add_found_in(const Side& x, const Side& y, std::vector<float>& out) {
  if (x.elements.empty()) {
    out.insert(out.end(), {-1.0f, -1.0f, -1.0f, -1.0f, -1.0f});
    return;
  }
  std::size_t equal = 0, inside = 0;
  long finest_found = -1, finest_missing = -1;
  double lcs_sum = 0;
  for (const auto& e : x.elements) {
    bool any_equal = false;
    double best_lcs = 0;
    for (const auto& other : y.elements) {
      any_equal = any_equal || other.text == e.text;
      best_lcs = std::max(best_lcs, static_cast<double>(lcs_length(e.text, other.text)) /
                                        static_cast<double>(std::max(e.text.size(), other.text.size())));
    }
    const bool found = y.text.find(e.text) != std::u32string_view::npos;
    equal += any_equal;
    inside += found;
    long& finest = found ? finest_found : finest_missing;
    finest = std::max(finest, e.rank);
    lcs_sum += best_lcs;
  }
  const auto n = static_cast<float>(x.elements.size());
  out.insert(out.end(), {static_cast<float>(equal) / n, static_cast<float>(inside) / n,
                         static_cast<float>(finest_found), static_cast<float>(finest_missing),
                         static_cast<float>(lcs_sum / static_cast<double>(x.elements.size()))});
}

// The first of the finest elements, and whether y's text names it.
void add_finest_found_in(const Side& x, const Side& y, std::vector<float>& out) {
  const InnerElement* finest = nullptr;
  for (const auto& e : x.elements) {
    if (!finest || e.rank > finest->rank) finest = &e;
  }
  if (!finest) {
    out.insert(out.end(), {-1.0f, -1.0f});
    return;
  }
  out.push_back(static_cast<float>(finest->rank));
  out.push_back(y.text.find(finest->text) != std::u32string_view::npos ? 1.0f : 0.0f);
}

}  // namespace

std::vector<InnerElement> inner_elements(const ParsedAddress& p, std::span<const std::u32string> folded_elements) {
  std::vector<InnerElement> out;
  for (std::size_t i = 0; i < p.elements.size(); ++i) {
    const auto it = std::find(kInnerTags.begin(), kInnerTags.end(), p.elements[i].tag);
    if (it != kInnerTags.end()) out.push_back({it - kInnerTags.begin(), unify_building_words(folded_elements[i])});
  }
  return out;
}

void add_element_coverage(std::span<const InnerElement> a, std::u32string_view unified_a,
                          std::span<const InnerElement> b, std::u32string_view unified_b, std::vector<float>& out) {
  const Side sa{a, unified_a}, sb{b, unified_b};
  add_found_in(sa, sb, out);
  add_found_in(sb, sa, out);
  add_finest_found_in(sb, sa, out);
  add_finest_found_in(sa, sb, out);
}

}  // namespace geoalign::match
