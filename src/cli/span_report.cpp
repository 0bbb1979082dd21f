#include "cli/span_report.h"

#include <cstdio>

namespace geoalign::cli {

namespace {

nlohmann::json counts_json(const geo::SpanScores::Counts& c) {
  return {{"precision", c.precision()}, {"recall", c.recall()}, {"f1", c.f1()},
          {"gold", c.gold},             {"predicted", c.predicted}, {"correct", c.correct}};
}

void print_row(const char* name, const geo::SpanScores::Counts& c) {
  std::printf("  %-12s %9.4f %9.4f %9.4f %8zu %9zu\n", name, c.precision(), c.recall(), c.f1(), c.gold, c.predicted);
}

}  // namespace

void print_span_report(const geo::SpanScores& scores) {
  std::printf("  %-12s %9s %9s %9s %8s %9s\n", "tag", "precision", "recall", "F1", "gold", "predicted");
  for (const auto& [tag, counts] : scores.by_tag()) print_row(tag.c_str(), counts);
  print_row("overall", scores.overall());
}

nlohmann::json span_report_json(const geo::SpanScores& scores) {
  nlohmann::json tags = nlohmann::json::object();
  for (const auto& [tag, counts] : scores.by_tag()) tags[tag] = counts_json(counts);
  return {{"overall", counts_json(scores.overall())}, {"tags", tags}};
}

}  // namespace geoalign::cli
