#pragma once

#include <cstddef>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "geo/address_tokens.h"
#include "geo/tag_set.h"

namespace geoalign::geo {

// One address from a CoNLL file ("token TAG" per line, a blank line between addresses),
// re-tokenized the way the parser tokenizes raw text, so that training, evaluation and
// parsing see the same units. A file token that splits ("12-3" into "12", "-", "3")
// gives its tag to every piece, B- on the first only.
struct TaggedAddress {
  std::size_t line = 0;  // of the address's first token
  std::u32string text;   // the tokens joined
  std::vector<AddressToken> tokens;
  std::vector<Label> labels;
};

// Throws Error naming source:line for a malformed line, an unknown tag or invalid UTF-8.
std::vector<TaggedAddress> read_conll(std::istream& in, const std::string& source_name);

// The same from a file; also an Error if it cannot be opened or holds no address.
std::vector<TaggedAddress> read_conll_file(const std::string& path);

// Span precision, recall and F1 per tag and overall, counted as conlleval does: an
// element is right only if its tag and both boundaries are.
class SpanScores {
 public:
  struct Counts {
    std::size_t gold = 0, predicted = 0, correct = 0;
    double precision() const { return predicted ? double(correct) / double(predicted) : 0.0; }
    double recall() const { return gold ? double(correct) / double(gold) : 0.0; }
    double f1() const {
      const double p = precision(), r = recall();
      return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    }
  };

  void add(const std::vector<TagSpan>& gold, const std::vector<TagSpan>& predicted);
  const Counts& overall() const { return overall_; }
  const std::map<std::string, Counts>& by_tag() const { return by_tag_; }

 private:
  Counts overall_;
  std::map<std::string, Counts> by_tag_;
};

}  // namespace geoalign::geo
