#pragma once

#include <vector>

#include "geo/conll.h"
#include "geo/gazetteer.h"
#include "geo/historical.h"
#include "geo/sequence_tagger.h"

namespace geoalign::geo {

SpanScores evaluate_tagger(const std::vector<TaggedAddress>& data, const Gazetteer& gazetteer,
                           const SequenceTagger& tagger, const HistoricalDivisions* historical = nullptr);

}  // namespace geoalign::geo
