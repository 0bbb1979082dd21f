#pragma once

#include <string>
#include <tuple>
#include <utility>

#include "text/aliases.h"

namespace geoalign::runtime {

// A pair after the model's normalization and the reconciling of its names (an
// abbreviation beside its expansion is written in full: text/aliases.h): the only text
// any later stage reads.
struct NormalizedPair {
  std::string a, b;
  // Put in canonical order (in_canonical_order) by swapping the two addresses given.
  bool swapped = false;
};

// `pair` with its names reconciled by `aliases` (none when null).
inline NormalizedPair reconcile_names(const text::AliasTable* aliases, NormalizedPair pair) {
  if (aliases == nullptr) return pair;
  if (auto written = aliases->reconcile(pair.a, pair.b)) {
    return {std::move(written->first), std::move(written->second), pair.swapped};
  }
  return pair;
}

// `pair` with its shorter address first (in bytes; equal lengths by byte order), so that
// (a, b) and (b, a) become one pair and a head trained in this order reads both alike;
// `swapped` says whether that reversed the order given. A pair of one text stays as it is.
inline NormalizedPair in_canonical_order(NormalizedPair pair) {
  if (std::forward_as_tuple(pair.b.size(), pair.b) < std::forward_as_tuple(pair.a.size(), pair.a)) {
    std::swap(pair.a, pair.b);
    pair.swapped = !pair.swapped;
  }
  return pair;
}

}  // namespace geoalign::runtime
