#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "geoalign/parser.h"
#include "match/compared_address.h"
#include "match/term_weights.h"

namespace geoalign::match {

// What a feature-augmented match head sees besides the encoder: string measures over the
// whole pair, element-by-element comparisons of the two parses (same road? same number?
// one POI inside the other?), agreement of the completed admin chains, how fine each
// address goes, the same string measures on what is left after the admin levels, which
// of each address's elements the other names, idf-weighted overlaps (weights trained with
// the head, match/term_weights.h), and what the longest shared run leaves over.
// Every value is finite; "not applicable" is -1.
const std::vector<std::string>& pair_feature_names();

// The head compares at most this many code points of an address, so that its quadratic
// measures (longest common subsequences) stay fast on hostile input. No real address comes
// near it, and the encoder itself reads only its first max_length tokens.
constexpr std::size_t kMaxComparedChars = 256;
// The longest prefix of utf8 within kMaxComparedChars code points (whole sequences only).
std::string_view compared_prefix(std::string_view utf8);

std::vector<float> pair_features(const ParsedAddress& a, const ParsedAddress& b, const TermWeights& weights);
// The same for addresses worked out beforehand: equal to the above for their parses.
std::vector<float> pair_features(const ComparedAddress& a, const ComparedAddress& b);

}  // namespace geoalign::match
