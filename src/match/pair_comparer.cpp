#include "match/pair_comparer.h"

#include "match/pair_features.h"

namespace geoalign::match {

PairComparer PairComparer::load(const std::filesystem::path& parser_dir, const std::filesystem::path& term_weights_file) {
  return PairComparer(AddressParser::load(parser_dir), TermWeights::load(term_weights_file));
}

std::vector<float> PairComparer::features(std::string_view a, std::string_view b) const {
  return features(parse(a), parse(b));
}

namespace {

// The head was trained on chains that leave ambiguous levels empty: no guess.
constexpr ParseOptions kCompared{.guess = false};

}  // namespace

ParsedAddress parse_for_comparison(const AddressParser& parser, std::string_view address) {
  return parser.parse(compared_prefix(address), kCompared);
}

ParsedAddress complete_for_comparison(const AddressParser& parser, std::string_view address,
                                      std::vector<AddressElement> elements) {
  return parser.complete(compared_prefix(address), std::move(elements), kCompared);
}

ParsedAddress PairComparer::parse(std::string_view address) const { return parse_for_comparison(parser_, address); }

ParsedAddress PairComparer::complete(std::string_view address, std::vector<AddressElement> elements) const {
  return complete_for_comparison(parser_, address, std::move(elements));
}

std::vector<float> PairComparer::features(const ParsedAddress& a, const ParsedAddress& b) const {
  return pair_features(a, b, weights_);
}

ComparedAddress PairComparer::compared(const ParsedAddress& parsed) const { return compared_address(parsed, weights_); }

std::vector<float> PairComparer::features(const ComparedAddress& a, const ComparedAddress& b) const {
  return pair_features(a, b);
}

}  // namespace geoalign::match
