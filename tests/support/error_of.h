#pragma once

#include <functional>
#include <string>

#include "geoalign/error.h"

namespace geoalign::testing {

// The message of the Error `f` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace geoalign::testing
