#pragma once

#include <string>
#include <vector>

#include "loadtest/load_generator.h"

namespace geoalign::loadtest {

// perf_analyzer-style table: one row per level.
std::string format_table(const std::vector<LevelResult>& levels);
std::string format_csv(const std::vector<LevelResult>& levels);
// Throughput (left axis) and p99 latency (right axis) against the load level.
std::string render_svg_chart(const std::vector<LevelResult>& levels, const std::string& title);

}  // namespace geoalign::loadtest
