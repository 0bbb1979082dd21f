#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "runtime/batcher.h"
#include "serve/api_keys.h"
#include "serve/cors.h"
#include "serve/metrics.h"
#include "serve/routes.h"

namespace geoalign::serve {

class SearchKind;

// Limits on what the server reads (the body limit is ServerOptions::max_body_bytes).
inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::size_t max_body_bytes = 1 << 20;
  std::size_t max_items_per_request = 1024;
  std::chrono::milliseconds timeout{30000};  // per request; 0 disables
  // Per connection (0 disables each): from a request's first byte to its last; waiting
  // for the next request on a keep-alive connection; writing one response.
  std::chrono::milliseconds read_timeout{30000};
  std::chrono::milliseconds idle_timeout{60000};
  std::chrono::milliseconds write_timeout{30000};
  // After SIGTERM or stop(): the longest wait for open connections before closing them
  // and returning anyway (0 = wait for ever).
  std::chrono::milliseconds drain_timeout{25000};
  // Connections open at once at most; more are answered 503 and closed (0: no cap).
  std::size_t max_connections = 8192;
  // Answer bytes that clients have not read yet, summed over connections (0: no cap).
  // Above it inference requests are answered 503 until clients read or go: a client that
  // asks for a large answer and never reads it holds the answer until the write timeout,
  // and thousands of them would hold gigabytes.
  std::size_t max_unread_bytes = std::size_t{512} << 20;
  // The JSON workers (large bodies and answers) at the lowest priority, as
  // runtime::BatcherOptions::after_threads_idle.
  bool json_workers_idle = false;
  // The keys a request needs (null: none), reloaded from their file on SIGHUP, and the
  // groups of routes open without one (route_access_group in serve/routes.h).
  std::shared_ptr<ApiKeys> api_keys;
  std::set<std::string, std::less<>> open_groups = {"health"};
  CorsPolicy cors;
  // The KServe model's name (serve/routes.h: kDefaultModelName, is_valid_model_name).
  std::string model_name{kDefaultModelName};

  // Whether a request to a route of access `group` (route_access_group) may go on, given
  // its Authorization header (HTTP) or authorization metadata (gRPC), if it sent one.
  bool admits(std::string_view group, std::optional<std::string_view> authorization) const {
    if (!api_keys || open_groups.contains(group)) return true;
    return authorization && api_keys->admits(*authorization);
  }
};

// The HTTP front end: Boost.Beast on one asynchronous I/O thread, so thousands of
// keep-alive connections cost no threads; all model work happens in the Batcher.
class Server {
 public:
  // Without `search` (serve without --index), /v1/search answers 404.
  Server(const runtime::PairScorer& scorer, runtime::Batcher& batcher, Metrics& metrics, ServerOptions options,
         const SearchKind* search = nullptr);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; returns the port (useful with port 0).
  std::uint16_t listen();
  // Readiness (GET /v2/health/ready): false until the model is warmed up.
  void set_ready(bool ready);
  // What set_ready() said last (safe from any thread; gRPC's readiness).
  bool ready() const;
  // Serves until SIGTERM or SIGINT, then drains: stops accepting, answers every request
  // it has read, closes idle connections and returns. Connections still open at the
  // drain deadline, or at a second signal, are closed and run() returns at once.
  void run();
  // Starts the same drain as SIGTERM; safe to call from any thread.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace geoalign::serve
