#pragma once

#include <string>
#include <vector>

#include "geoalign/matcher.h"

namespace geoalign::cli {

// Valid pairs of a TSV file, for bench and profile; bad rows are counted, not used.
std::vector<AddressPair> read_valid_pairs(const std::string& path);

}  // namespace geoalign::cli
