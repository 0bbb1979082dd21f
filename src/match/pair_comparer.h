#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "geoalign/parser.h"
#include "match/compared_address.h"
#include "match/term_weights.h"

namespace geoalign::match {

// How pairs are compared read an address: its compared prefix (compared_address.h), without
// the admin guess (an ambiguous chain keeps only the levels its readings share, as the
// heads were trained on). Search and dedup read every address this way, with or without
// a head.
ParsedAddress parse_for_comparison(const AddressParser& parser, std::string_view address);
// The same from the elements an earlier parse of this address found (an index stores them).
ParsedAddress complete_for_comparison(const AddressParser& parser, std::string_view address,
                                      std::vector<AddressElement> elements);

// What the match head knows besides its trees: the parser and the term weights it was
// trained with, turning a pair of addresses into the pair features of match/pair_features.h.
// The text it is given must already be normalized as the encoder's (runtime::PairScorer
// does that), so that the head and the encoder judge the same pair.
class PairComparer {
 public:
  // Throws Error naming the folder or file for anything malformed.
  static PairComparer load(const std::filesystem::path& parser_dir, const std::filesystem::path& term_weights_file);

  // Thread-safe. Throws Error on invalid UTF-8.
  std::vector<float> features(std::string_view a, std::string_view b) const;

  // The same in two steps, for callers that compare one address with many (search
  // rerank, dedup): parse each address once, then compare parses.
  // features(parse(a), parse(b)) == features(a, b). Parses without the admin guess
  // (ParseOptions::guess off): an ambiguous chain keeps only the levels its readings share,
  // as the head was trained on, so dedup's regions and search's --region read the same.
  ParsedAddress parse(std::string_view address) const;
  std::vector<float> features(const ParsedAddress& a, const ParsedAddress& b) const;
  // A third step for one address compared with many: work out what the features read of
  // it once. features(compared(a), compared(b)) == features(a, b); `parsed` must outlive
  // its compared form.
  ComparedAddress compared(const ParsedAddress& parsed) const;
  std::vector<float> features(const ComparedAddress& a, const ComparedAddress& b) const;
  // parse() from the elements a parse() of this address found before (an index stores them).
  ParsedAddress complete(std::string_view address, std::vector<AddressElement> elements) const;

  // The parser itself, for callers that want a whole address parsed (the server's
  // /v1/parse), not only the prefix that pairs are compared on.
  const AddressParser& parser() const { return parser_; }

 private:
  PairComparer(AddressParser parser, TermWeights weights) : parser_(std::move(parser)), weights_(std::move(weights)) {}
  AddressParser parser_;
  TermWeights weights_;
};

}  // namespace geoalign::match
