#pragma once

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/batcher.h"

namespace geoalign::serve {

// A Prometheus histogram with fixed upper bounds; observe() is lock-free.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  void render(std::string& out, const std::string& name, const std::string& help) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::atomic<std::uint64_t>> counts_;  // one per bound, plus +Inf
  std::atomic<std::uint64_t> total_{0};
  std::atomic<double> sum_{0};
};

// Everything /metrics reports. Latencies are in seconds, as Prometheus expects.
class Metrics : public runtime::BatchObserver {
 public:
  Metrics();

  void on_batch(std::size_t sequences, std::size_t tokens, double compute_seconds) override;
  void on_dequeued(double waited_seconds) override { queue_latency.observe(waited_seconds); }
  void on_queue_depth(std::int64_t depth) override { queue_depth = depth; }
  void on_cache_lookup(bool hit) override { ++(hit ? cache_hits : cache_misses); }

  void count_request(const std::string& endpoint, int status);
  Histogram request_latency, queue_latency, compute_latency, batch_size, batch_tokens;
  std::atomic<std::int64_t> queue_depth{0};
  std::atomic<std::uint64_t> cache_hits{0}, cache_misses{0}, pairs_scored{0}, batches{0};
  // Connections: failed accepts (e.g. out of descriptors), connections open now, and
  // connections closed for a read, idle or write timeout.
  std::atomic<std::uint64_t> accept_errors{0}, read_timeouts{0}, idle_timeouts{0}, write_timeouts{0};
  std::atomic<std::int64_t> open_connections{0};
  // Bytes of answers being written, not yet taken by their clients.
  std::atomic<std::int64_t> unread_answer_bytes{0};
  std::atomic<std::uint64_t> refused_connections{0};  // answered 503 past --max-connections
  std::atomic<std::uint64_t> hangups{0};  // requests whose connection ended while they waited
  std::atomic<std::uint64_t> unauthorized{0};  // answered 401: no API key, or a wrong one

  std::string render() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;
};

}  // namespace geoalign::serve
