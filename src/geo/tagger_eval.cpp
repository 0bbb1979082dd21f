#include "geo/tagger_eval.h"

#include "geo/address_parser.h"
#include "geo/tagger_features.h"

namespace geoalign::geo {

SpanScores evaluate_tagger(const std::vector<TaggedAddress>& data, const Gazetteer& gazetteer,
                           const SequenceTagger& tagger, const HistoricalDivisions* historical) {
  SpanScores scores;
  for (const auto& address : data) {
    const auto predicted = tagger.tag(extract_features(address.tokens, gazetteer, historical));
    scores.add(spans_from_labels(address.labels), spans_from_labels(predicted));
  }
  return scores;
}

SpanScores evaluate_elements(const std::vector<TaggedAddress>& data, const Gazetteer& gazetteer,
                             const SequenceTagger& tagger, const HistoricalDivisions* historical) {
  SpanScores scores;
  for (const auto& address : data) {
    std::vector<TagSpan> gold;
    for (const TagSpan& s : spans_from_labels(address.labels)) {
      gold.push_back({s.tag, address.tokens[s.begin].start, address.tokens[s.end - 1].end});
    }
    std::vector<TagSpan> predicted;
    for (const AddressElement& e : tag_elements(address.text, gazetteer, tagger, historical)) {
      predicted.push_back({*tag_index(e.tag), e.start, e.end});
    }
    scores.add(gold, predicted);
  }
  return scores;
}

}  // namespace geoalign::geo
