#include "serve/http_server.h"

#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <optional>
#include <unordered_set>

#include "serve/api.h"

namespace geoalign::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using runtime::InferenceRequest;

struct Server::Impl {
  Impl(const runtime::PairScorer& s, runtime::Batcher& b, Metrics& m, ServerOptions o)
      : scorer(s), batcher(b), metrics(m), options(std::move(o)), acceptor(io), signals(io, SIGTERM, SIGINT) {}

  void accept();
  void begin_drain();

  const runtime::PairScorer& scorer;
  runtime::Batcher& batcher;
  Metrics& metrics;
  ServerOptions options;
  asio::io_context io{1};
  tcp::acceptor acceptor;
  asio::signal_set signals;
  std::atomic<bool> ready{false};
  bool draining = false;
  std::unordered_set<class Session*> sessions;
  std::size_t embedding_dim = 0;
};

namespace {

constexpr std::size_t kHeaderLimit = 16 * 1024;

const char* endpoint_label(const std::string& target) {
  if (target == "/v1/match") return "/v1/match";
  if (target == "/v1/embed") return "/v1/embed";
  if (target == "/v2/models/geoalign/infer") return "/v2/infer";
  if (target == "/metrics") return "/metrics";
  if (target.rfind("/v2/health", 0) == 0) return "/v2/health";
  if (target.rfind("/v2", 0) == 0) return "/v2/metadata";
  return "other";
}

}  // namespace

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::Impl& server)
      : socket_(std::move(socket)), server_(server), timer_(server.io) {
    server_.sessions.insert(this);
  }
  ~Session() { server_.sessions.erase(this); }

  void start() { read_request(); }

  // Called on drain: a connection waiting for its next request is closed now; one with a
  // request in flight closes after answering it.
  void close_if_idle() {
    if (!busy_) {
      beast::error_code ignored;
      socket_.shutdown(tcp::socket::shutdown_both, ignored);
      socket_.close(ignored);
    }
  }

 private:
  void read_request() {
    parser_.emplace();
    parser_->body_limit(server_.options.max_body_bytes);
    parser_->header_limit(kHeaderLimit);
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      started_ = std::chrono::steady_clock::now();
      target_ = "other";
      keep_alive_ = false;
      respond_error({413, "too_large",
                     "request body is larger than " + std::to_string(server_.options.max_body_bytes) + " bytes"});
      return;
    }
    const auto& http_errors = http::make_error_code(http::error::end_of_stream).category();
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || (ec && ec.category() != http_errors)) {
      return;  // the client closed or the connection broke: nobody to answer
    }
    if (ec) {  // the bytes were not HTTP/1.1
      started_ = std::chrono::steady_clock::now();
      keep_alive_ = false;
      return respond_error({400, "bad_http", "malformed HTTP request: " + ec.message()});
    }
    request_ = parser_->release();
    started_ = std::chrono::steady_clock::now();
    keep_alive_ = request_.keep_alive();
    busy_ = true;
    handle();
  }

  void handle() {
    const std::string target(request_.target());
    target_ = endpoint_label(target);
    const bool get = request_.method() == http::verb::get;
    const bool post = request_.method() == http::verb::post;
    if (target == "/v2/health/live") return get ? respond_json(http::status::ok, R"({"live":true})") : not_allowed();
    if (target == "/v2/health/ready" || target == "/v2/models/geoalign/ready") {
      if (!get) return not_allowed();
      const bool ready = server_.ready.load() && !server_.draining;
      return respond_json(ready ? http::status::ok : http::status::service_unavailable,
                          ready ? R"({"ready":true})" : R"({"ready":false})");
    }
    if (target == "/v2") {
      return get ? respond_json(http::status::ok, R"({"name":"geoalign","version":"0.1.0","extensions":[]})")
                 : not_allowed();
    }
    if (target == "/v2/models/geoalign") {
      return get ? respond_json(http::status::ok,
                                render_model_metadata(server_.scorer.labels(), server_.embedding_dim))
                 : not_allowed();
    }
    if (target == "/metrics") {
      return get ? respond(http::status::ok, server_.metrics.render(), "text/plain; version=0.0.4") : not_allowed();
    }
    std::optional<Endpoint> endpoint;
    if (target == "/v1/match") endpoint = Endpoint::Match;
    if (target == "/v1/embed") endpoint = Endpoint::Embed;
    if (target == "/v2/models/geoalign/infer") endpoint = Endpoint::KServeInfer;
    if (!endpoint) return respond_error({404, "not_found", "no such endpoint: " + target});
    if (!post) return not_allowed();
    infer(*endpoint);
  }

  void infer(Endpoint endpoint) {
    if (!server_.ready.load() || server_.draining) {
      return respond_error({503, "unavailable", server_.draining ? "server is shutting down" : "model is warming up"});
    }
    auto parsed = parse_request(endpoint, request_.body(), server_.options.max_items_per_request);
    if (auto* error = std::get_if<ApiError>(&parsed)) return respond_error(*error);
    auto request = std::make_shared<InferenceRequest>();
    request->kind = std::get<ParsedRequest>(parsed).kind;
    request->first = std::move(std::get<ParsedRequest>(parsed).first);
    request->second = std::move(std::get<ParsedRequest>(parsed).second);
    const auto timeout = server_.options.timeout;
    if (timeout.count() > 0) request->deadline = runtime::Clock::now() + timeout;
    std::weak_ptr<Session> weak = shared_from_this();
    auto& io = server_.io;
    request->done = [weak, &io, endpoint, parsed_request = std::move(std::get<ParsedRequest>(parsed))](
                        InferenceRequest& done) {
      // Runs on a batcher thread: hand the result to the I/O thread.
      asio::post(io, [weak, endpoint, request = done.shared_from_this(), parsed_request] {
        if (auto self = weak.lock()) self->on_result(endpoint, parsed_request, *request);
      });
    };
    if (!server_.batcher.submit(request)) {
      return respond_error({429, "queue_full", "the queue is full; retry shortly"}, true);
    }
    inflight_ = request;
    if (timeout.count() > 0) {
      timer_.expires_after(timeout);
      timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (ec || !self->inflight_) return;
        self->inflight_->cancelled = true;
        self->inflight_.reset();
        self->respond_error({504, "timeout", "no result within the request timeout"});
      });
    }
    watch_for_hangup();
  }

  // A readable socket with nothing to read means the client closed while waiting.
  void watch_for_hangup() {
    socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->inflight_) return;
      beast::error_code ignored;
      if (self->socket_.available(ignored) == 0) self->inflight_->cancelled = true;
    });
  }

  void on_result(Endpoint endpoint, const ParsedRequest& parsed, InferenceRequest& done) {
    if (!inflight_ || inflight_.get() != &done) return;  // already answered (timeout)
    auto request = std::move(inflight_);
    timer_.cancel();
    switch (done.outcome) {
      case InferenceRequest::Outcome::Ok:
        return respond_json(http::status::ok, render_response(endpoint, parsed, done));
      case InferenceRequest::Outcome::TimedOut:
        return respond_error({504, "timeout", done.error});
      case InferenceRequest::Outcome::Cancelled:
        return close();
      default:
        return respond_error({500, "internal", done.error});
    }
  }

  void not_allowed() { respond_error({405, "method_not_allowed", "method not allowed on this endpoint"}); }

  void respond_error(const ApiError& error, bool retry_after = false) {
    respond(static_cast<http::status>(error.status), render_error(error), "application/json", retry_after);
  }

  void respond_json(http::status status, std::string body) { respond(status, std::move(body), "application/json"); }

  void respond(http::status status, std::string body, const char* content_type, bool retry_after = false) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    server_.metrics.request_latency.observe(seconds);
    server_.metrics.count_request(target_, static_cast<int>(status));
    auto response = std::make_shared<http::response<http::string_body>>(status, 11);
    response->set(http::field::server, "geoalign");
    response->set(http::field::content_type, content_type);
    if (retry_after) response->set(http::field::retry_after, "1");
    response->keep_alive(keep_alive_ && !server_.draining);
    response->body() = std::move(body);
    response->prepare_payload();
    http::async_write(socket_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
                        self->busy_ = false;
                        if (ec || !response->keep_alive()) return self->close();
                        self->read_request();
                      });
  }

  void close() {
    busy_ = false;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  Server::Impl& server_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  std::shared_ptr<InferenceRequest> inflight_;
  std::chrono::steady_clock::time_point started_;
  const char* target_ = "other";
  bool keep_alive_ = true;
  bool busy_ = false;
};

void Server::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) return;  // the acceptor was closed for draining
    socket.set_option(tcp::no_delay(true));
    std::make_shared<Session>(std::move(socket), *this)->start();
    accept();
  });
}

void Server::Impl::begin_drain() {
  if (draining) return;
  draining = true;
  std::fprintf(stderr, "geoalign serve: draining: answering accepted requests, then exiting\n");
  beast::error_code ignored;
  acceptor.close(ignored);
  // Sessions remove themselves from the set as they end; copy before closing.
  for (Session* s : std::vector<Session*>(sessions.begin(), sessions.end())) s->close_if_idle();
}

Server::Server(const runtime::PairScorer& scorer, runtime::Batcher& batcher, Metrics& metrics, ServerOptions options)
    : impl_(std::make_unique<Impl>(scorer, batcher, metrics, std::move(options))) {
  impl_->embedding_dim = static_cast<std::size_t>(scorer.folder().embedding.dimension());
}

Server::~Server() = default;

std::uint16_t Server::listen() {
  Impl& s = *impl_;
  beast::error_code ec;
  const auto address = asio::ip::make_address(s.options.host, ec);
  if (ec) throw Error("invalid --host " + s.options.host + ": " + ec.message());
  const tcp::endpoint endpoint(address, s.options.port);
  s.acceptor.open(endpoint.protocol());
  s.acceptor.set_option(asio::socket_base::reuse_address(true));
  s.acceptor.bind(endpoint, ec);
  if (ec) throw Error("cannot listen on " + s.options.host + ":" + std::to_string(s.options.port) + ": " + ec.message());
  s.acceptor.listen(asio::socket_base::max_listen_connections);
  return s.acceptor.local_endpoint().port();
}

void Server::set_ready(bool ready) { impl_->ready = ready; }

void Server::stop() {
  asio::post(impl_->io, [impl = impl_.get()] { impl->begin_drain(); });
}

void Server::run() {
  Impl& s = *impl_;
  auto work = asio::make_work_guard(s.io);
  s.signals.async_wait([&s](beast::error_code ec, int) {
    if (!ec) s.begin_drain();
  });
  // Once draining and every connection is gone, nothing is left to answer.
  asio::steady_timer poll(s.io);
  std::function<void()> check;
  check = [&] {
    if (s.draining && s.sessions.empty()) {
      work.reset();
      s.signals.cancel();
      return;
    }
    poll.expires_after(std::chrono::milliseconds(20));
    poll.async_wait([&](beast::error_code) { check(); });
  };
  check();
  s.accept();
  s.io.run();
}

}  // namespace geoalign::serve
