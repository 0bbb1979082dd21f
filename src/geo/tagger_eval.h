#pragma once

#include <vector>

#include "geo/conll.h"
#include "geo/gazetteer.h"
#include "geo/historical.h"
#include "geo/sequence_tagger.h"

namespace geoalign::geo {

// The tagger alone: its labels' spans against the file's, token by token.
SpanScores evaluate_tagger(const std::vector<TaggedAddress>& data, const Gazetteer& gazetteer,
                           const SequenceTagger& tagger, const HistoricalDivisions* historical = nullptr);

// The elements `parse` reports (tag_elements: the tagger, then the rules after it: marks,
// 中国, division names written last, municipalities), against the file's spans, both in
// code points of the address.
SpanScores evaluate_elements(const std::vector<TaggedAddress>& data, const Gazetteer& gazetteer,
                             const SequenceTagger& tagger, const HistoricalDivisions* historical = nullptr);

}  // namespace geoalign::geo
