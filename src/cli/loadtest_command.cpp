#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/bench_inputs.h"
#include "common/open_file.h"
#include "geoalign/error.h"
#include "loadtest/grpc_load_generator.h"
#include "loadtest/load_generator.h"
#include "loadtest/report.h"

namespace geoalign::cli {

namespace {

// --concurrency's levels: whole numbers of clients.
std::vector<std::size_t> client_counts(const Args& args) {
  std::vector<std::size_t> out;
  for (const double c : args.reals("concurrency", 1, 100000)) {
    if (c != std::floor(c)) throw UsageError("--concurrency must be whole numbers of clients, got \"" + args.value("concurrency") + "\"");
    out.push_back(static_cast<std::size_t>(c));
  }
  return out;
}

// 10s, 500ms, 5m or a bare number of seconds; from `min` up to a day.
std::chrono::milliseconds parse_duration(const std::string& option, const std::string& text,
                                         std::chrono::milliseconds min) {
  constexpr double kDayMs = 24.0 * 3600 * 1000;
  double ms = std::nan("");
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    const std::string unit = text.substr(used);
    ms = unit == "ms" ? value : unit == "s" || unit.empty() ? value * 1000 : unit == "m" ? value * 60000 : std::nan("");
  } catch (const std::exception&) {
  }
  // 1.005s is 1004.9999999999999 ms in binary: whole milliseconds up to rounding.
  const double whole = std::round(ms);
  if (!(whole >= static_cast<double>(min.count()) && whole <= kDayMs) || std::abs(ms - whole) > 1e-6) {
    throw UsageError("--" + option + " must look like 10s, 500ms or 5m, from " + std::to_string(min.count()) +
                     " ms to a day in whole milliseconds, got \"" + text + "\"");
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(whole));
}

std::vector<std::string> request_bodies(const std::string& path, const std::string& url_path) {
  std::vector<std::string> bodies;
  for (const auto& pair : read_valid_pairs(path)) {
    nlohmann::json body;
    if (url_path.find("/infer") != std::string::npos) {
      body = {{"inputs", {{{"name", "addr1"}, {"datatype", "BYTES"}, {"shape", {1}}, {"data", nlohmann::json::array({pair.a})}},
                          {{"name", "addr2"}, {"datatype", "BYTES"}, {"shape", {1}}, {"data", nlohmann::json::array({pair.b})}}}}};
    } else if (url_path.find("/embed") != std::string::npos) {
      body = {{"addresses", nlohmann::json::array({pair.a})}};
    } else {
      body = {{"pairs", nlohmann::json::array({nlohmann::json::array({pair.a, pair.b})})}};
    }
    bodies.push_back(body.dump());
  }
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
             {"chart", true, "SVG chart of throughput and p99 per level", "loadtest.svg"},
             {"api-key", true, "a key of the server's (serve --api-key), sent as Authorization: Bearer KEY", ""},
             {"grpc", true,
              "load KServe v2 over gRPC at HOST:PORT (serve --grpc-port) instead of --url: ModelInfer, one pair a call",
              ""},
             {"model-name", true, "with --grpc: the server's model name (serve --model-name)", "geoalign"}},
            "");
  args.parse(argc, argv, first);
  if (args.flag("help")) {
    std::cout << args.usage();
    return 0;
  }
  auto target = loadtest::Target::parse(args.value("url"));
  target.api_key = args.value("api-key");
  loadtest::LoadOptions base;
  base.duration = parse_duration("duration", args.value("duration"), std::chrono::milliseconds(1));
  base.warmup = parse_duration("warmup", args.value("warmup"), std::chrono::milliseconds(0));

  std::vector<loadtest::LoadOptions> levels;
  if (!args.value("rate").empty()) {
    for (double r : args.reals("rate", 0.001, 1e6)) {
      auto o = base;
      o.rate = r;
      levels.push_back(o);
    }
  } else {
    for (const std::size_t c : client_counts(args)) {
      auto o = base;
      o.concurrency = c;
      levels.push_back(o);
    }
  }

  const bool grpc = args.given("grpc");
  if (grpc && !args.value("rate").empty()) throw UsageError("--grpc runs --concurrency levels, not --rate");
  const loadtest::GrpcTarget grpc_target{args.value("grpc"), args.value("model-name"), target.api_key};
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> bodies;
  if (grpc) {
    for (auto& pair : read_valid_pairs(args.value("input"))) pairs.emplace_back(std::move(pair.a), std::move(pair.b));
  } else {
    bodies = request_bodies(args.value("input"), target.path);
  }
  std::vector<loadtest::LevelResult> results;
  for (const auto& level : levels) {
    std::fprintf(stderr, "loadtest: %s %g for %.1f s ...\n", level.rate > 0 ? "rate" : "concurrency",
                 level.rate > 0 ? level.rate : static_cast<double>(level.concurrency),
                 std::chrono::duration<double>(level.duration).count());
    results.push_back(grpc ? loadtest::run_grpc_level(grpc_target, pairs, level)
                           : loadtest::run_level(target, bodies, level));
  }
  std::cout << loadtest::format_table(results);
  const auto write = [](const std::string& path, const std::string& text) {
    std::ofstream out = open_for_writing(path);
    out << text;
    if (!out.flush()) throw Error(path + ": write failed");
  };
  if (!args.value("csv").empty()) write(args.value("csv"), loadtest::format_csv(results));
  if (!args.value("chart").empty()) {
    write(args.value("chart"), loadtest::render_svg_chart(results, "geoalign loadtest: " +
                                                                       (grpc ? "grpc://" + args.value("grpc") : args.value("url"))));
    std::fprintf(stderr, "loadtest: chart written to %s\n", args.value("chart").c_str());
  }
  return 0;
}

}  // namespace geoalign::cli
