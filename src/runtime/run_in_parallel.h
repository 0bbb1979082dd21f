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

// What an exception says, for an error message: what() of a std::exception, else a
// placeholder (nothing geoalign throws lacks it).
inline std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

// Runs fn(i) for i in [0, n) over every core, items handed out `grain` at a time; when
// items throw, the one with the lowest index is rethrown as an Error prefixed with
// name_of(index) ("row 12: ..."), whichever thread ran it.
template <typename NameOf, typename Fn>
void for_each_named(std::size_t n, std::int64_t grain, NameOf&& name_of, Fn&& fn) {
  cpu::FirstFailure failure;
  cpu::parallel_for_dynamic_collect(
      static_cast<std::int64_t>(n), grain, [&](std::int64_t i) { fn(static_cast<std::size_t>(i)); }, failure);
  if (failure) throw Error(name_of(static_cast<std::size_t>(failure.index())) + ": " + message_of(failure.error()));
}

// Returns {encode(0), ..., encode(n-1)}, computed in parallel, failing as for_each_named.
template <typename NameOf, typename Encode>
auto run_in_parallel_named(std::size_t n, NameOf&& name_of, Encode&& encode) {
  std::vector<decltype(encode(std::size_t{0}))> out(n);
  // Addresses differ in length and parsing cost: hand them out a few at a time.
  for_each_named(n, 8, name_of, [&](std::size_t k) { out[k] = encode(k); });
  return out;
}

// The same, items named "`what` index".
template <typename Encode>
auto run_in_parallel(std::size_t n, const char* what, Encode&& encode) {
  return run_in_parallel_named(
      n, [what](std::size_t k) { return std::string(what) + " " + std::to_string(k); }, std::forward<Encode>(encode));
}

// Runs fn(i) for i in [0, n) over every core and returns each item's error message, none
// for items that succeeded: for work whose items fail alone (a batch's requests).
template <typename Fn>
std::vector<std::optional<std::string>> errors_of_each(std::size_t n, std::int64_t grain, Fn&& fn) {
  std::vector<std::optional<std::string>> errors(n);
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(n), grain, [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      fn(k);
    } catch (...) {
      errors[k] = message_of(std::current_exception());
    }
  });
  return errors;
}

}  // namespace geoalign::runtime
