#pragma once

#include <nlohmann/json.hpp>

#include "geo/conll.h"

namespace geoalign::cli {

// conlleval's table: per tag and overall span precision, recall, F1 and counts.
void print_span_report(const geo::SpanScores& scores);
nlohmann::json span_report_json(const geo::SpanScores& scores);

}  // namespace geoalign::cli
