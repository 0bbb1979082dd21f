#include "geo/tagger_eval.h"

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

}  // namespace geoalign::geo
