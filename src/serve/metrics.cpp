#include "serve/metrics.h"

#include <cstdio>

namespace geoalign::serve {

namespace {

std::vector<double> latency_bounds() {
  return {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10};
}

std::vector<double> powers_of_two(double last) {
  std::vector<double> b;
  for (double v = 1; v <= last; v *= 2) b.push_back(v);
  return b;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1) {}

void Histogram::observe(double value) {
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  total_.fetch_add(1, std::memory_order_relaxed);
  double sum = sum_.load(std::memory_order_relaxed);
  while (!sum_.compare_exchange_weak(sum, sum + value, std::memory_order_relaxed)) {
  }
}

void Histogram::render(std::string& out, const std::string& name, const std::string& help) const {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " histogram\n";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_sum " + number(sum_.load()) + "\n";
  out += name + "_count " + std::to_string(total_.load()) + "\n";
}

Metrics::Metrics()
    : request_latency(latency_bounds()),
      queue_latency(latency_bounds()),
      compute_latency(latency_bounds()),
      batch_size(powers_of_two(1024)),
      batch_tokens(powers_of_two(65536)) {}

void Metrics::on_batch(std::size_t sequences, std::size_t tokens, double compute_seconds) {
  batch_size.observe(static_cast<double>(sequences));
  batch_tokens.observe(static_cast<double>(tokens));
  compute_latency.observe(compute_seconds);
  pairs_scored += sequences;
  ++batches;
}

void Metrics::count_request(const std::string& endpoint, int status) {
  std::lock_guard lock(mutex_);
  ++requests_[{endpoint, status}];
}

std::string Metrics::render() const {
  std::string out;
  out += "# HELP geoalign_requests_total HTTP requests by endpoint and status code.\n";
  out += "# TYPE geoalign_requests_total counter\n";
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, n] : requests_) {
      out += "geoalign_requests_total{endpoint=\"" + key.first + "\",code=\"" + std::to_string(key.second) + "\"} " +
             std::to_string(n) + "\n";
    }
  }
  request_latency.render(out, "geoalign_request_duration_seconds", "Time from request read to response ready.");
  queue_latency.render(out, "geoalign_queue_duration_seconds", "Time a pair waited in the batch queue.");
  compute_latency.render(out, "geoalign_compute_duration_seconds", "Model time per batch.");
  batch_size.render(out, "geoalign_batch_size", "Sequences per batch.");
  batch_tokens.render(out, "geoalign_batch_tokens", "Tokens per batch.");
  auto gauge = [&](const char* name, const char* type, const char* help, auto value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
           std::to_string(value) + "\n";
  };
  gauge("geoalign_queue_depth", "gauge", "Items waiting for a batch.", queue_depth.load());
  gauge("geoalign_cache_hits_total", "counter", "Pair results served from the cache.", cache_hits.load());
  gauge("geoalign_cache_misses_total", "counter", "Pairs not found in the cache.", cache_misses.load());
  gauge("geoalign_items_total", "counter", "Pairs and addresses run through the model.", pairs_scored.load());
  gauge("geoalign_batches_total", "counter", "Batches run.", batches.load());
  gauge("geoalign_open_connections", "gauge", "Client connections open now.", open_connections.load());
  gauge("geoalign_unread_answer_bytes", "gauge", "Bytes of answers their clients have not read yet.",
        unread_answer_bytes.load());
  gauge("geoalign_refused_connections_total", "counter",
        "Connections answered 503 and closed because --max-connections were open.", refused_connections.load());
  gauge("geoalign_cancelled_requests_total", "counter",
        "Requests whose connection ended while they waited (client reset, or closed at the drain deadline); "
        "the batcher skips them.",
        hangups.load());
  gauge("geoalign_unauthorized_requests_total", "counter",
        "Requests answered 401: the route needs an API key (serve --api-key) and none of the keys came.",
        unauthorized.load());
  gauge("geoalign_accept_errors_total", "counter", "Failed accepts (e.g. out of file descriptors); accepting resumes after a back-off.",
        accept_errors.load());
  out += "# HELP geoalign_connection_timeouts_total Connections closed for a timeout, by phase.\n"
         "# TYPE geoalign_connection_timeouts_total counter\n";
  out += "geoalign_connection_timeouts_total{phase=\"read\"} " + std::to_string(read_timeouts.load()) + "\n";
  out += "geoalign_connection_timeouts_total{phase=\"idle\"} " + std::to_string(idle_timeouts.load()) + "\n";
  out += "geoalign_connection_timeouts_total{phase=\"write\"} " + std::to_string(write_timeouts.load()) + "\n";
  return out;
}

}  // namespace geoalign::serve
