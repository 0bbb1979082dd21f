#pragma once

#include <string>
#include <vector>

#include "geoalign/parser.h"
#include "match/term_weights.h"

namespace geoalign::match {

// What a feature-augmented match head sees besides the encoder: string measures over the
// whole pair, element-by-element comparisons of the two parses (same road? same number?
// one POI inside the other?), agreement of the completed admin chains, how fine each
// address goes, the same string measures on what is left after the admin levels, which
// of each address's elements the other names, and idf-weighted overlaps (weights trained
// with the head, match/term_weights.h).
// Every value is finite; "not applicable" is -1.
const std::vector<std::string>& pair_feature_names();
std::vector<float> pair_features(const ParsedAddress& a, const ParsedAddress& b, const TermWeights& weights);

}  // namespace geoalign::match
