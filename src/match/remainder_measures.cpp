#include "match/remainder_measures.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>

#include "match/string_measures.h"

namespace geoalign::match {

namespace {

std::u32string_view without_trailing_branch(std::u32string_view s) {
  if (s.empty() || s.back() != U')') return s;
  const std::size_t open = s.rfind(U'(');
  return open == std::u32string_view::npos ? s : s.substr(0, open);
}

std::size_t count_words(std::u32string_view s, std::span<const std::u32string_view> words) {
  std::size_t n = 0;
  for (const auto w : words) {
    for (std::size_t at = s.find(w); at != std::u32string_view::npos; at = s.find(w, at + w.size())) ++n;
  }
  return n;
}

constexpr std::array<std::u32string_view, 11> kDirectionWords = {
    U"交叉口", U"附近", U"对面", U"旁", U"米", U"路口", U"东门", U"南门", U"西门", U"北门", U"("};
constexpr std::array<std::u32string_view, 5> kUnitWords = {U"单元", U"室", U"层", U"楼", U"户"};

void add_only_in(std::u32string_view x, std::u32string_view y, std::vector<float>& out) {
  std::size_t chars = 0, digits = 0;
  for (const char32_t c : x) {
    if (y.find(c) != std::u32string_view::npos) continue;
    ++chars;
    digits += c >= U'0' && c <= U'9';
  }
  out.push_back(static_cast<float>(chars));
  out.push_back(static_cast<float>(digits));
}

}  // namespace

void add_remainder_measures(std::u32string_view a, std::u32string_view b, std::u32string_view ua,
                            std::u32string_view ub, std::vector<float>& out) {
  const SharedRun run = longest_shared_run(ua, ub);
  const std::u32string_view trunk = without_trailing_branch(ub);
  const SharedRun trunk_run = longest_shared_run(ua, trunk);
  out.push_back(run.length ? static_cast<float>(ua.size() - run.end_a) : -1.0f);
  out.push_back(run.length ? static_cast<float>(ub.size() - run.end_b) : -1.0f);
  out.push_back(trunk_run.length ? static_cast<float>(trunk.size() - trunk_run.end_b) : -1.0f);
  out.push_back(static_cast<float>(count_words(b, kDirectionWords)));
  out.push_back(static_cast<float>(count_words(a, kUnitWords)));
  out.push_back(static_cast<float>(count_words(b, kUnitWords)));
  add_only_in(ub, ua, out);
  add_only_in(ua, ub, out);
}

}  // namespace geoalign::match
