#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "geo/address_tokens.h"
#include "geo/gazetteer.h"

namespace geoalign::geo {

// Bumped whenever the feature templates change: a tagger trained on other features
// would load but mis-tag silently, so the model file records the version it needs.
inline constexpr std::uint32_t kFeatureVersion = 1;

// Hashed feature ids per token, in compressed-row layout. Hashes rather than strings keep
// the model file free of any text from the training data.
struct TokenFeatures {
  std::vector<std::uint64_t> ids;
  std::vector<std::uint32_t> begin{0};  // one more than there are tokens

  std::size_t tokens() const { return begin.size() - 1; }
  std::span<const std::uint64_t> of(std::size_t token) const {
    return std::span<const std::uint64_t>(ids).subspan(begin[token], begin[token + 1] - begin[token]);
  }
};

// Character n-grams in a five-token window, character classes, the nearest address
// keywords (路, 号, 栋, ...) on each side, and gazetteer matches (level, position in the
// match, full or short name, and whether the same division was already named earlier,
// which is how the data marks a redundant repetition).
TokenFeatures extract_features(const std::vector<AddressToken>& tokens, const Gazetteer& gazetteer);

}  // namespace geoalign::geo
