#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/parallel.h"
#include "geoalign/error.h"

namespace geoalign::runtime {

// Returns {encode(0), ..., encode(n-1)}, computed in parallel. Exceptions cannot leave an
// OpenMP region, so each failure is kept and the one with the lowest index is rethrown,
// prefixed with name_of(index) ("pair 12: ...").
template <typename NameOf, typename Encode>
auto run_in_parallel_named(std::size_t n, NameOf&& name_of, Encode&& encode) {
  std::vector<decltype(encode(std::size_t{0}))> out(n);
  std::vector<std::optional<std::string>> errors(n);
  // Addresses differ in length and parsing cost: hand them out a few at a time.
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), 8, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      out[k] = encode(k);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  });
  for (std::size_t k = 0; k < n; ++k) {
    if (errors[k]) throw Error(name_of(k) + ": " + *errors[k]);
  }
  return out;
}

// The same, items named "`what` index".
template <typename Encode>
auto run_in_parallel(std::size_t n, const char* what, Encode&& encode) {
  return run_in_parallel_named(
      n, [what](std::size_t k) { return std::string(what) + " " + std::to_string(k); }, std::forward<Encode>(encode));
}

}  // namespace geoalign::runtime
