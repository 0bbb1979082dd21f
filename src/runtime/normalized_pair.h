#pragma once

#include <string>

namespace geoalign::runtime {

// A pair after the model's normalization: the only text any later stage reads.
struct NormalizedPair {
  std::string a, b;
};

}  // namespace geoalign::runtime
