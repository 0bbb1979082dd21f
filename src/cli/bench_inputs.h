#pragma once

#include <string>
#include <vector>

#include "geoalign/matcher.h"

namespace geoalign::cli {

// Valid pairs of a TSV file, for bench, profile and loadtest (sample data): each bad row is
// said on stderr with its line, and left out.
std::vector<AddressPair> read_valid_pairs(const std::string& path);

}  // namespace geoalign::cli
