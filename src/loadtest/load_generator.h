#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace geoalign::loadtest {

struct Target {
  std::string host;
  std::string port;
  std::string path;
  std::string api_key;  // sent as Authorization: Bearer KEY when not empty (serve --api-key)
  static Target parse(const std::string& url);  // http://host:port/path
};

struct LoadOptions {
  std::size_t concurrency = 1;  // closed loop: connections, each with one request in flight
  double rate = 0;              // open loop: requests per second (0 = closed loop)
  std::chrono::milliseconds duration{10000};
  std::chrono::milliseconds warmup{1000};  // excluded from the figures
  std::size_t max_connections = 2048;      // open loop's connection cap
};

struct LevelResult {
  std::size_t concurrency = 0;
  double rate = 0;
  double seconds = 0;
  std::uint64_t ok = 0;
  std::map<std::string, std::uint64_t> errors;  // "http_429", "connect", "timeout", ...
  std::vector<double> latencies_ms;             // successful requests, sorted

  double throughput() const { return seconds > 0 ? static_cast<double>(ok) / seconds : 0; }
  double percentile(double p) const;
  std::uint64_t error_count() const;
};

// Drives an HTTP endpoint with request bodies taken round-robin from `bodies`, over
// keep-alive connections on one asynchronous thread. The open loop measures latency
// from each request's scheduled send time, so a slow server cannot hide its queueing.
LevelResult run_level(const Target& target, const std::vector<std::string>& bodies, const LoadOptions& options);

}  // namespace geoalign::loadtest
