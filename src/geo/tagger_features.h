#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "geo/address_tokens.h"
#include "geo/gazetteer.h"
#include "geo/historical.h"

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
//
// With `historical`, the full names of former divisions (江干区, 闸北区) match too, as a
// current name of their level would: a text without one gets exactly the features it
// had without `historical`, so the shipped tagger needs no retraining.
TokenFeatures extract_features(const std::vector<AddressToken>& tokens, const Gazetteer& gazetteer,
                               const HistoricalDivisions* historical = nullptr);

}  // namespace geoalign::geo
