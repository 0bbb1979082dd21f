#pragma once

#include <optional>
#include <span>
#include <string>

#include "dedup/pair_evaluation.h"

namespace geoalign::dedup {

// The curve as a table, one line per threshold: threshold, precision, recall, F1, and the
// pair counts; the threshold the run used, when it used one, is marked with '*'.
std::string threshold_table(std::span<const ThresholdPoint> curve, std::optional<float> used);

// The curve as an SVG chart: precision, recall and F1 against the threshold, with a line
// at the threshold used, when one was.
std::string threshold_chart_svg(std::span<const ThresholdPoint> curve, std::optional<float> used,
                                const std::string& title);

}  // namespace geoalign::dedup
