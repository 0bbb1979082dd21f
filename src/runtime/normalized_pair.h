#pragma once

#include <string>
#include <utility>

#include "text/aliases.h"

namespace geoalign::runtime {

// A pair after the model's normalization and the reconciling of its names (an
// abbreviation beside its expansion is written in full: text/aliases.h): the only text
// any later stage reads.
struct NormalizedPair {
  std::string a, b;
};

// `pair` with its names reconciled by `aliases` (none when null).
inline NormalizedPair reconcile_names(const text::AliasTable* aliases, NormalizedPair pair) {
  if (aliases == nullptr) return pair;
  if (auto written = aliases->reconcile(pair.a, pair.b)) return {std::move(written->first), std::move(written->second)};
  return pair;
}

}  // namespace geoalign::runtime
