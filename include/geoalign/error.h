#pragma once

#include <stdexcept>
#include <string>

namespace geoalign {

// The one exception type geoalign throws for bad input, bad model folders and
// unsupported requests. Messages name the place: a file, a line, a tensor, a field.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace geoalign
