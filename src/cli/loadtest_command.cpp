#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/pair_reader.h"
#include "geoalign/error.h"
#include "loadtest/load_generator.h"
#include "loadtest/report.h"

namespace geoalign::cli {

namespace {

std::vector<double> positive_numbers(const Args& args, const std::string& option) {
  std::vector<double> out;
  for (const std::string& item : args.list(option)) {
    try {
      std::size_t used = 0;
      out.push_back(std::stod(item, &used));
      if (used != item.size() || out.back() <= 0) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError("--" + option + " must be a comma-separated list of positive numbers, got \"" +
                       args.value(option) + "\"");
    }
  }
  return out;
}

std::chrono::milliseconds parse_duration(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    const std::string unit = text.substr(used);
    const double ms = unit == "ms" ? value : unit == "s" || unit.empty() ? value * 1000 : unit == "m" ? value * 60000 : -1;
    if (ms <= 0) throw std::invalid_argument(text);
    return std::chrono::milliseconds(static_cast<long>(ms));
  } catch (const std::exception&) {
    throw UsageError("--duration must look like 10s, 500ms or 5m, got \"" + text + "\"");
  }
}

std::vector<std::string> request_bodies(const std::string& path, const std::string& url_path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open --input " + path);
  PairReader reader(in, path);
  std::vector<std::string> bodies;
  std::variant<PairRow, BadRow> row;
  while (reader.next(row)) {
    const auto* pair = std::get_if<PairRow>(&row);
    if (pair == nullptr) continue;
    nlohmann::json body;
    if (url_path.find("/infer") != std::string::npos) {
      body = {{"inputs", {{{"name", "addr1"}, {"datatype", "BYTES"}, {"shape", {1}}, {"data", nlohmann::json::array({pair->a})}},
                          {{"name", "addr2"}, {"datatype", "BYTES"}, {"shape", {1}}, {"data", nlohmann::json::array({pair->b})}}}}};
    } else if (url_path.find("/embed") != std::string::npos) {
      body = {{"addresses", nlohmann::json::array({pair->a})}};
    } else {
      body = {{"pairs", nlohmann::json::array({nlohmann::json::array({pair->a, pair->b})})}};
    }
    bodies.push_back(body.dump());
  }
  if (bodies.empty()) throw Error(path + " holds no valid pairs");
  return bodies;
}

}  // namespace

int run_loadtest(int argc, char** argv, int first) {
  Args args("loadtest",
            {{"url", true, "endpoint to load (/v1/match, /v1/embed or /v2/models/geoalign/infer)",
              "http://127.0.0.1:8080/v1/match"},
             {"concurrency", true, "closed-loop levels: keep-alive clients, one request in flight each", "1,4,16,64,256"},
             {"rate", true, "open-loop levels instead: requests per second, comma-separated", ""},
             {"duration", true, "measured time per level", "10s"},
             {"warmup", true, "unmeasured time before each level", "1s"},
             {"input", true, "pairs to send, one per request, round robin", "examples/sample_pairs.tsv"},
             {"csv", true, "also write the figures as CSV", ""},
             {"chart", true, "SVG chart of throughput and p99 per level", "loadtest.svg"}},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  const auto target = loadtest::Target::parse(args.value("url"));
  const auto bodies = request_bodies(args.value("input"), target.path);
  loadtest::LoadOptions base;
  base.duration = parse_duration(args.value("duration"));
  base.warmup = args.value("warmup") == "0" ? std::chrono::milliseconds(0) : parse_duration(args.value("warmup"));

  std::vector<loadtest::LoadOptions> levels;
  if (!args.value("rate").empty()) {
    for (double r : positive_numbers(args, "rate")) {
      auto o = base;
      o.rate = r;
      levels.push_back(o);
    }
  } else {
    for (double c : positive_numbers(args, "concurrency")) {
      auto o = base;
      o.concurrency = static_cast<std::size_t>(c);
      levels.push_back(o);
    }
  }

  std::vector<loadtest::LevelResult> results;
  for (const auto& level : levels) {
    std::fprintf(stderr, "loadtest: %s %g for %.1f s ...\n", level.rate > 0 ? "rate" : "concurrency",
                 level.rate > 0 ? level.rate : static_cast<double>(level.concurrency),
                 std::chrono::duration<double>(level.duration).count());
    results.push_back(loadtest::run_level(target, bodies, level));
  }
  std::cout << loadtest::format_table(results);
  if (!args.value("csv").empty()) {
    std::ofstream(args.value("csv")) << loadtest::format_csv(results);
  }
  if (!args.value("chart").empty()) {
    std::ofstream(args.value("chart")) << loadtest::render_svg_chart(results, "geoalign loadtest: " + args.value("url"));
    std::fprintf(stderr, "loadtest: chart written to %s\n", args.value("chart").c_str());
  }
  return 0;
}

}  // namespace geoalign::cli
