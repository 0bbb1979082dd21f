#include "geo/tag_set.h"

#include <array>
#include <cctype>

namespace geoalign::geo {

namespace {

constexpr std::array<const char*, kNumTags> kTagNames = {
    "country", "prov",  "city",   "district",  "devzone", "town",   "community",
    "road",    "subroad", "roadno", "subroadno", "poi",   "subpoi", "houseno",
    "cellno",  "floorno", "roomno", "person",  "assist",  "redundant", "otherinfo"};

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

const char* tag_name(std::size_t tag) { return tag < kNumTags ? kTagNames[tag] : "?"; }

std::optional<std::size_t> tag_index(std::string_view name) {
  for (std::size_t t = 0; t < kNumTags; ++t) {
    if (equals_ignoring_case(name, kTagNames[t])) return t;
  }
  return std::nullopt;
}

std::optional<ConllTag> parse_conll_tag(std::string_view text) {
  if (text.size() < 3 || text[1] != '-') return std::nullopt;
  const char kind = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  if (kind != 'B' && kind != 'I') return std::nullopt;
  const auto tag = tag_index(text.substr(2));
  if (!tag) return std::nullopt;
  return ConllTag{*tag, kind == 'B'};
}

std::vector<TagSpan> spans_from_labels(const std::vector<Label>& labels) {
  std::vector<TagSpan> spans;
  bool open = false;  // whether spans.back() may still grow
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::size_t tag = label_tag(labels[i]);
    if (!label_opens(labels[i]) && open && spans.back().tag == tag) {
      spans.back().end = i + 1;
    } else {
      spans.push_back({tag, i, i + 1});
    }
    open = !label_closes(labels[i]);
  }
  return spans;
}

std::vector<Label> labels_from_spans(const std::vector<TagSpan>& spans, std::size_t tokens) {
  std::vector<Label> labels(tokens, 0);
  for (const TagSpan& s : spans) {
    if (s.end - s.begin == 1) {
      labels[s.begin] = make_label(s.tag, LabelKind::kSingle);
      continue;
    }
    labels[s.begin] = make_label(s.tag, LabelKind::kBegin);
    for (std::size_t i = s.begin + 1; i + 1 < s.end; ++i) labels[i] = make_label(s.tag, LabelKind::kInside);
    labels[s.end - 1] = make_label(s.tag, LabelKind::kEnd);
  }
  return labels;
}

}  // namespace geoalign::geo
