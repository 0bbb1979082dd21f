#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geoalign::geo {

// The 21 address element tags of Li et al. (NAACL 2019), in the order of the address_ner
// data's labels.txt. The data has no O: every token belongs to some element.
inline constexpr std::size_t kNumTags = 21;

// A token's label is one of four per tag (4 * tag + kind): B- opens an element of two or
// more tokens, I- continues it, E- ends it, S- is an element of one token. The data is
// tagged B-/I- only; labels that mark an element's end let the tagger learn where
// elements stop, which is where most of its errors were (docs/notes/parser-training.md).
enum class LabelKind : std::uint8_t { kBegin = 0, kInside = 1, kEnd = 2, kSingle = 3 };
inline constexpr std::size_t kLabelsPerTag = 4;
inline constexpr std::size_t kNumLabels = kLabelsPerTag * kNumTags;

using Label = std::uint8_t;

const char* tag_name(std::size_t tag);
// Case-insensitive ("devZone" and "devzone" are one tag); nullopt if unknown.
std::optional<std::size_t> tag_index(std::string_view name);

// A CoNLL tag, "B-road" or "I-poi" (any case): the element's tag and whether the token
// opens an element; nullopt if malformed or unknown.
struct ConllTag {
  std::size_t tag = 0;
  bool begins = false;
};
std::optional<ConllTag> parse_conll_tag(std::string_view text);

inline Label make_label(std::size_t tag, LabelKind kind) {
  return static_cast<Label>(kLabelsPerTag * tag + static_cast<std::size_t>(kind));
}
inline std::size_t label_tag(Label l) { return l / kLabelsPerTag; }
inline LabelKind label_kind(Label l) { return static_cast<LabelKind>(l % kLabelsPerTag); }
// B- and S- open an element; E- and S- close one.
inline bool label_opens(Label l) { return label_kind(l) == LabelKind::kBegin || label_kind(l) == LabelKind::kSingle; }
inline bool label_closes(Label l) { return label_kind(l) == LabelKind::kEnd || label_kind(l) == LabelKind::kSingle; }

// Well-formed sequences: an element opens where the one before has closed (or at the
// start), continues with its own tag only, and the last token closes one.
inline bool transition_allowed(std::optional<Label> previous, Label next) {
  if (!previous.has_value()) return label_opens(next);
  const Label p = previous.value();
  return label_opens(next) ? label_closes(p) : !label_closes(p) && label_tag(p) == label_tag(next);
}
inline bool may_end(Label last) { return label_closes(last); }

// An element: a tag over the token range [begin, end).
struct TagSpan {
  std::size_t tag = 0;
  std::size_t begin = 0, end = 0;
  bool operator==(const TagSpan&) const = default;
};

// Elements as conlleval reads them, generalized to end labels: B-x and S-x open one; I-x
// and E-x continue it only if an element of x is open, and otherwise open a new one; E-x
// and S-x close it.
std::vector<TagSpan> spans_from_labels(const std::vector<Label>& labels);

// The well-formed labels of elements that cover tokens [0, tokens) one after another.
std::vector<Label> labels_from_spans(const std::vector<TagSpan>& spans, std::size_t tokens);

}  // namespace geoalign::geo
