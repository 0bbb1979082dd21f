#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geoalign::geo {

// The 21 address element tags of Li et al. (NAACL 2019), in the order of the address_ner
// data's labels.txt. A token's label is B-tag (2 * tag) or I-tag (2 * tag + 1); the data
// has no O: every token belongs to some element.
inline constexpr std::size_t kNumTags = 21;
inline constexpr std::size_t kNumLabels = 2 * kNumTags;

using Label = std::uint8_t;

const char* tag_name(std::size_t tag);
// Case-insensitive ("devZone" and "devzone" are one tag); nullopt if unknown.
std::optional<std::size_t> tag_index(std::string_view name);
// "B-road", "I-poi" (any case); nullopt if malformed or unknown.
std::optional<Label> parse_label(std::string_view text);

inline std::size_t label_tag(Label l) { return l / 2; }
inline bool label_is_begin(Label l) { return l % 2 == 0; }
inline Label begin_label(std::size_t tag) { return static_cast<Label>(2 * tag); }
inline Label inside_label(std::size_t tag) { return static_cast<Label>(2 * tag + 1); }

// I-x may only continue an element of the same tag.
inline bool transition_allowed(std::optional<Label> previous, Label next) {
  if (label_is_begin(next)) return true;
  return previous && label_tag(*previous) == label_tag(next);
}

// An element: a tag over the token range [begin, end).
struct TagSpan {
  std::size_t tag = 0;
  std::size_t begin = 0, end = 0;
  bool operator==(const TagSpan&) const = default;
};

// Elements as conlleval reads them: B-x opens one; I-x continues it only if the open
// element is x, and otherwise opens a new one.
std::vector<TagSpan> spans_from_labels(const std::vector<Label>& labels);

}  // namespace geoalign::geo
