#include "serve/http_server.h"

#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <variant>

#include "backend/cpu/available_cores.h"
#include "backend/threads.h"
#include "runtime/worker_pool.h"
#include "serve/api.h"
#include "serve/explain_kind.h"
#include "serve/kserve_model.h"
#include "serve/openapi.h"
#include "serve/parse_kind.h"
#include "serve/playground.h"
#include "serve/routes.h"
#include "text/excerpt.h"
#include "serve/search_kind.h"
#include "serve/search_request.h"

namespace geoalign::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using runtime::InferenceRequest;

class Session;

// The batcher's threads hand results to the I/O thread through this: once the server
// is gone (or going), posting is a no-op instead of a use of a destroyed io_context.
struct PostGate {
  std::mutex mutex;
  asio::io_context* io = nullptr;
};

struct Server::Impl {
  Impl(const runtime::PairScorer& s, runtime::Batcher& b, Metrics& m, ServerOptions o, const SearchKind* k)
      : scorer(s), batcher(b), metrics(m), options(std::move(o)), search(k),
        playground(playground_page(options.model_name)) {
    if (!is_valid_model_name(options.model_name)) {
      throw Error("model name \"" + text::excerpt(options.model_name) + "\" must be 1 to " +
                  std::to_string(kMaxModelNameBytes) + " of A-Z a-z 0-9 _ - .");
    }
    gate->io = &io;
  }
  ~Impl() {
    {
      std::lock_guard lock(gate->mutex);
      gate->io = nullptr;
    }
    // Handlers still queued in `io` (results that came after run() returned) are
    // destroyed with it and may end sessions; they must not reach back into the server.
    destroying = true;
  }

  void accept();
  void on_accept_error(const beast::error_code& ec);
  void refuse(tcp::socket socket);
  void watch_signals(asio::signal_set& set);
  void watch_hangups();
  void begin_drain();
  void force_stop(const char* why);
  void connection_closed(Session* session);
  void finish();

  const runtime::PairScorer& scorer;
  runtime::Batcher& batcher;
  Metrics& metrics;
  ServerOptions options;
  const SearchKind* search;  // null without an index
  const std::string playground;  // the page, for this model's name
  std::shared_ptr<PostGate> gate = std::make_shared<PostGate>();
  // Declared before `io`, so they outlive the handlers `io` destroys.
  std::unordered_set<Session*> connections;  // sessions whose socket is open
  bool draining = false, finished = false, destroying = false;
  std::atomic<bool> ready{false};
  std::size_t embedding_dim = 0;
  std::size_t accept_failures = 0;
  std::chrono::milliseconds accept_backoff{0};

  asio::io_context io{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  tcp::acceptor acceptor{io};
  // Every signal that would end the process drains it as SIGTERM does; SIGHUP, which
  // ends a process whose terminal goes away, is logged and ignored.
  asio::signal_set signals{io, SIGTERM, SIGINT, SIGQUIT};
  asio::signal_set more_signals{io, SIGUSR1, SIGUSR2};  // a signal_set holds at most a few
  asio::signal_set hangups{io, SIGHUP};
  asio::steady_timer accept_timer{io};
  asio::steady_timer drain_timer{io};
  // Parses large request bodies and renders large answers, so the I/O thread serves every
  // other connection meanwhile. Declared last: destroyed first, its threads joined while
  // everything their tasks use is still here.
  runtime::WorkerPool json_workers{static_cast<std::size_t>(cpu::available_cores()), [idle = options.json_workers_idle] {
    if (idle) run_at_background_priority_on_this_thread();
  }};
};

namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
// Bodies up to this size are parsed, and answers of up to kInlineItems items rendered, on
// the I/O thread: a hop to the JSON workers would cost more than the work. Larger ones
// (up to --max-body-bytes, a GiB at most) go to the workers, so a large request cannot
// hold every other connection still.
constexpr std::size_t kInlineBodyBytes = 32 * 1024;
constexpr std::size_t kInlineItems = 32;
// How long, and how many bytes, a connection being closed after its answer waits for the
// client to finish sending (see Session::linger).
constexpr std::chrono::seconds kLinger{2};
constexpr std::size_t kLingerBytes = 64 * 1024 * 1024;

// Sets a tcp_stream deadline; a zero duration means none.
void expire_after(beast::tcp_stream& stream, std::chrono::milliseconds d) {
  if (d.count() > 0) {
    stream.expires_after(d);
  } else {
    stream.expires_never();
  }
}

// Runs `handler` on the I/O thread, unless the server is gone (or going): for the
// batcher's threads and the JSON workers. The handler must hold whatever it needs.
template <typename Handler>
void post_to_io(const std::shared_ptr<PostGate>& gate, Handler&& handler) {
  std::lock_guard lock(gate->mutex);
  if (gate->io == nullptr) return;
  asio::post(*gate->io, std::forward<Handler>(handler));
}

}  // namespace

// One connection. Phases: Idle (waiting for a request's first byte, idle timeout),
// Reading (read timeout), Busy (request in the batcher, request timeout) and Writing
// (write timeout). A session is kept alive by its pending operations and, while a
// request is in the batcher, by that request's `done` callback.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::Impl& server)
      : stream_(std::move(socket)), server_(server), timer_(server.io) {
    server_.connections.insert(this);
    ++server_.metrics.open_connections;
  }
  ~Session() {
    if (!server_.destroying) close();
  }

  void start() { read_request(); }

  // On drain: a connection waiting for its next request is closed now; one reading,
  // computing or writing a request closes after answering it.
  void close_if_idle() {
    if (phase_ == Phase::Idle) close();
  }
  // At the drain deadline: closed whatever it is doing.
  void force_close() { close(); }

 private:
  enum class Phase { Idle, Reading, Busy, Writing };

  void read_request() {
    parser_.emplace();
    parser_->body_limit(server_.options.max_body_bytes);
    parser_->header_limit(kMaxHeaderBytes);
    request_ = {};
    target_ = "other";
    head_only_ = false;
    if (buffer_.size() > 0) return read_header();  // a pipelined request is already here
    if (server_.draining) return close();
    phase_ = Phase::Idle;
    expire_after(stream_, server_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->buffer_.commit(n);
      if (ec == beast::error::timeout) ++self->server_.metrics.idle_timeouts;
      if (ec) return self->close();  // timed out, closed by the client or by a drain
      self->read_header();
    });
  }

  void read_header() {
    phase_ = Phase::Reading;
    expire_after(stream_, server_.options.read_timeout);  // covers header and body
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_read(ec);
    const auto& header = parser_->get();
    if (header.version() >= 11 && beast::iequals(header[http::field::expect], "100-continue") && !parser_->is_done()) {
      // The client waits for this before sending the body (curl: up to a second).
      auto interim = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      http::async_write(stream_, *interim, [self = shared_from_this(), interim](beast::error_code wec, std::size_t) {
        if (wec) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return on_read({});
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    stream_.expires_never();
    if (ec == http::error::body_limit) {
      started_ = std::chrono::steady_clock::now();
      const auto& header = parser_->get();
      const Route* route =
          find_route(std::string_view(header.target().data(), header.target().size()), server_.options.model_name);
      target_ = route == nullptr ? "other" : route->metrics_label;
      keep_alive_ = false;
      return respond_error({413, "too_large",
                            "request body is larger than " + std::to_string(server_.options.max_body_bytes) + " bytes"});
    }
    if (ec == http::error::header_limit) {
      started_ = std::chrono::steady_clock::now();
      target_ = "other";  // the request line may be cut off: no route is known
      keep_alive_ = false;
      return respond_error({431, "headers_too_large",
                            "request headers are larger than " + std::to_string(kMaxHeaderBytes) + " bytes"});
    }
    if (ec == beast::error::timeout) {
      ++server_.metrics.read_timeouts;
      return close();  // the stream closed the socket: nothing can be answered
    }
    const auto& http_errors = http::make_error_code(http::error::end_of_stream).category();
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || (ec && ec.category() != http_errors)) {
      return close();  // the client closed or the connection broke: nobody to answer
    }
    started_ = std::chrono::steady_clock::now();
    if (ec) {  // the bytes were not HTTP/1.1
      keep_alive_ = false;
      return respond_error({400, "bad_http", "malformed HTTP request: " + ec.message()});
    }
    request_ = parser_->release();
    keep_alive_ = request_.keep_alive();
    head_only_ = request_.method() == http::verb::head;
    phase_ = Phase::Busy;
    try {
      handle();
    } catch (const std::exception& e) {
      answer_internal_error(e);
    }
  }

  void handle() {
    const std::string target(request_.target());
    const Route* route = find_route(target, server_.options.model_name);
    target_ = route == nullptr ? "other" : route->metrics_label;
    if (route == nullptr) return respond_error({404, "not_found", "no such endpoint: " + target});
    // A browser asks before a cross-origin call (a preflight, never with the API key).
    if (request_.method() == http::verb::options && server_.options.cors.enabled()) return preflight(*route);
    if (!authorized(*route)) {
      ++server_.metrics.unauthorized;
      return respond_error({401, "unauthorized",
                            "this endpoint needs an API key: send the header Authorization: Bearer KEY"},
                           false, {{"WWW-Authenticate", "Bearer"}});
    }
    if (route->endpoint == Endpoint::Search && server_.search == nullptr) {
      return respond_error({404, "not_found", "/v1/search needs an index: start the server with --index DIR"});
    }
    if (route->endpoint == Endpoint::Parse && !can_parse(server_.scorer)) {
      return respond_error({404, "not_found", "/v1/parse needs a parser: this model folder has none, and the bundled one is not there (serve --parser DIR)"});
    }
    const auto method = request_.method_string();
    // HEAD is GET without the body (RFC 9110), for every GET route.
    const bool allowed = std::string_view(method.data(), method.size()) == route->method ||
                         (head_only_ && route->method == std::string_view("GET"));
    if (!allowed) return not_allowed(*route);
    switch (route->id) {
      case RouteId::Live: return respond_json(http::status::ok, R"({"live":true})");
      case RouteId::Ready:
      case RouteId::ModelReady: {
        const bool ready = server_.ready.load() && !server_.draining;
        return respond_json(ready ? http::status::ok : http::status::service_unavailable,
                            ready ? R"({"ready":true})" : R"({"ready":false})");
      }
      case RouteId::ServerMetadata: return respond_json(http::status::ok, render_server_metadata());
      case RouteId::ModelMetadata:
        return respond_json(http::status::ok, render_model_metadata(server_.options.model_name, server_.scorer.labels(), server_.embedding_dim));
      case RouteId::ModelConfig: {
        const auto& batching = server_.batcher.options();
        return respond_json(http::status::ok, render_model_config(server_.options.model_name, batching.max_batch_size,
                                                                     batching.max_queue_delay));
      }
      case RouteId::Metrics: return respond(http::status::ok, server_.metrics.render(), "text/plain; version=0.0.4");
      case RouteId::OpenApi: return respond_json(http::status::ok, std::string(openapi_document()));
      case RouteId::Playground:
        return respond(http::status::ok, server_.playground, "text/html; charset=utf-8",
                       {{"Content-Security-Policy", std::string(kPlaygroundContentSecurityPolicy)}});
      case RouteId::Inference: return infer(*route->endpoint);
    }
  }

  void infer(Endpoint endpoint) {
    if (!server_.ready.load() || server_.draining) {
      return respond_error({503, "unavailable", server_.draining ? "server is shutting down" : "model is warming up"});
    }
    const auto unread = static_cast<std::size_t>(server_.metrics.unread_answer_bytes.load());
    if (server_.options.max_unread_bytes > 0 && unread > server_.options.max_unread_bytes) {
      return respond_error({503, "unavailable",
                            "the server holds " + std::to_string(unread >> 20) +
                                " MiB of answers that clients have not read (--max-unread-bytes); retry shortly"},
                           true);
    }
    // A request larger than the whole queue could never be accepted: 413, not 429.
    const std::size_t max_items = std::min(server_.options.max_items_per_request, server_.batcher.options().max_queue);
    std::optional<std::string> header_length;
    if (const auto field = request_.find("Inference-Header-Content-Length"); field != request_.end()) {
      header_length = std::string(field->value().data(), field->value().size());
    }
    if (request_.body().size() <= kInlineBodyBytes) {
      return submit(endpoint, prepare(endpoint, request_.body(), max_items, header_length));
    }
    auto body = std::make_shared<std::string>(std::move(request_.body()));
    server_.json_workers.post([self = shared_from_this(), endpoint, body, max_items, header_length]() mutable {
      Prepared prepared = self->prepare(endpoint, *body, max_items, header_length);
      body.reset();
      const auto gate = self->server_.gate;  // before `self` moves into the handler
      post_to_io(gate, [self = std::move(self), endpoint, prepared = std::move(prepared)]() mutable {
        self->submit(endpoint, std::move(prepared));
      });
    });
  }

  // A request parsed and turned into the batcher's, or why it cannot be: only reads the
  // server's fixed parts, so it runs on a JSON worker as well as on the I/O thread.
  struct ParsedAndMade {
    std::shared_ptr<ParsedRequest> parsed;
    std::shared_ptr<InferenceRequest> request;
  };
  using Prepared = std::variant<ParsedAndMade, ApiError>;

  Prepared prepare(Endpoint endpoint, std::string_view body, std::size_t max_items,
                   const std::optional<std::string>& header_length) const {
    try {
      auto parsed = parse_request(endpoint, body, max_items,
                                  header_length ? std::optional<std::string_view>(*header_length) : std::nullopt);
      if (auto* error = std::get_if<ApiError>(&parsed)) return std::move(*error);
      if (std::get<ParsedRequest>(parsed).explain && !can_explain(server_.scorer)) {
        return ApiError{400, "invalid_request", "\"explain\" needs a model with a match head; this one has none"};
      }
      auto parsed_request = std::make_shared<ParsedRequest>(std::move(std::get<ParsedRequest>(parsed)));
      if (parsed_request->model.empty()) parsed_request->model = server_.options.model_name;
      try {
        auto request = make_request(endpoint, *parsed_request);
        return ParsedAndMade{std::move(parsed_request), std::move(request)};
      } catch (const Error& e) {  // a region the gazetteer does not know
        return ApiError{400, "invalid_request", e.what()};
      }
    } catch (const std::bad_alloc&) {
      return ApiError{413, "too_large", "the request needs more memory than the server can give it"};
    }
  }

  void submit(Endpoint endpoint, Prepared prepared) {
    if (!open_) return;  // the client went, or a drain closed the connection meanwhile
    if (auto* error = std::get_if<ApiError>(&prepared)) return respond_error(*error);
    auto [parsed_request, request] = std::get<ParsedAndMade>(std::move(prepared));
    const auto timeout = server_.options.timeout;
    if (timeout.count() > 0) request->deadline = runtime::Clock::now() + timeout;
    // Runs on a batcher thread: hands the result to the I/O thread. It holds the session,
    // so a session with work in flight outlives its pending socket operations. Nothing
    // may escape into the batcher's thread.
    request->done = [gate = server_.gate, self = shared_from_this(), endpoint,
                     parsed_request](InferenceRequest& done) noexcept {
      try {
        post_to_io(gate, [self, endpoint, parsed_request, request = done.shared_from_this()] {
          self->on_result(endpoint, parsed_request, *request);
        });
      } catch (...) {  // e.g. out of memory: the client's connection ends without an answer
      }
    };
    if (!server_.batcher.submit(request)) {
      request->done = nullptr;
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

  // The batcher's request for a parsed one, of the endpoint's kind. Throws Error for a
  // search region that names no known place.
  std::shared_ptr<InferenceRequest> make_request(Endpoint endpoint, ParsedRequest& parsed) const {
    if (endpoint == Endpoint::Search) return server_.search->make_request(std::move(parsed.first), std::move(parsed.search));
    if (endpoint == Endpoint::Parse) {
      auto parse = std::make_shared<JsonResultsRequest>();
      parse->kind = &parse_kind();
      parse->first = std::move(parsed.first);
      return parse;
    }
    // An explained match carries its explanations as JSON results beside the matches.
    std::shared_ptr<InferenceRequest> request =
        parsed.explain ? std::make_shared<JsonResultsRequest>() : std::make_shared<InferenceRequest>();
    const bool embeds = endpoint == Endpoint::Embed || endpoint == Endpoint::OpenAiEmbeddings;
    request->kind = embeds                    ? &runtime::embed_kind()
                    : parsed.explain          ? &explain_kind()
                                              : &runtime::match_kind();
    request->first = std::move(parsed.first);
    request->second = std::move(parsed.second);
    return request;
  }

  // While a request is in the batcher, watch the socket: a reset means the client is
  // gone and its pairs can be skipped. End of stream is not enough to tell: a client
  // that half-closes (shuts down its write side after sending) still reads the answer.
  // Bytes that arrive are a pipelined request, read once this one is answered.
  void watch_for_hangup() {
    if (watching_ || peer_finished_sending_) return;
    watching_ = true;
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      self->watching_ = false;
      if (ec || !self->inflight_) return;
      beast::error_code ignored;
      if (self->stream_.socket().available(ignored) > 0) return;
      auto& socket = self->stream_.socket();
      socket.non_blocking(true, ignored);
      beast::error_code rec;
      const std::size_t n = socket.read_some(self->buffer_.prepare(1), rec);
      socket.non_blocking(false, ignored);
      self->buffer_.commit(n);
      if (rec == asio::error::would_block) return self->watch_for_hangup();
      if (rec == asio::error::eof) {
        self->peer_finished_sending_ = true;
        return;
      }
      if (rec && !self->inflight_->cancelled.exchange(true)) ++self->server_.metrics.hangups;
    });
  }

  void on_result(Endpoint endpoint, const std::shared_ptr<ParsedRequest>& parsed, InferenceRequest& done) {
    if (!inflight_ || inflight_.get() != &done) return;  // already answered (timeout)
    auto request = std::move(inflight_);
    timer_.cancel();
    try {
      switch (done.outcome) {
        case InferenceRequest::Outcome::Ok:
          if (done.size() <= kInlineItems) return send_rendered(render_response(endpoint, *parsed, done));
          // A large answer is rendered on a JSON worker; the request stays alive with it.
          server_.json_workers.post([self = shared_from_this(), endpoint, parsed = parsed, request]() mutable {
            std::variant<ResponseBody, std::string> rendered;
            try {
              rendered = render_response(endpoint, *parsed, *request);
            } catch (const std::exception& e) {
              rendered = std::string(e.what());
            }
            parsed.reset();
            request.reset();
            const auto gate = self->server_.gate;  // before `self` moves into the handler
            post_to_io(gate, [self = std::move(self), rendered = std::move(rendered)]() mutable {
              if (auto* body = std::get_if<ResponseBody>(&rendered)) return self->send_rendered(std::move(*body));
              self->answer_internal_error(std::runtime_error(std::get<std::string>(rendered)));
            });
          });
          return;
        case InferenceRequest::Outcome::TimedOut:
          return respond_error({504, "timeout", done.error});
        case InferenceRequest::Outcome::Cancelled:
          return close();
        default:
          return respond_error({500, "internal", done.error});
      }
    } catch (const std::exception& e) {
      answer_internal_error(e);
    }
  }

  void send_rendered(ResponseBody body) {
    if (!body.inference_header_length) return respond_json(http::status::ok, std::move(body.bytes));
    // Triton's binary tensor data: JSON header, then the raw outputs.
    respond(http::status::ok, std::move(body.bytes), "application/octet-stream",
            {{"Inference-Header-Content-Length", std::to_string(*body.inference_header_length)}});
  }

  void answer_internal_error(const std::exception& e) {
    std::fprintf(stderr, "geoalign serve: internal error: %s\n", e.what());
    if (phase_ != Phase::Busy) return close();
    keep_alive_ = false;
    respond_error({500, "internal", "internal error"});
  }

  // Header fields beside the ones every response has.
  using Headers = std::vector<std::pair<std::string, std::string>>;

  void not_allowed(const Route& route) {
    const std::string allow = route.method == std::string_view("GET") ? "GET, HEAD" : std::string(route.method);
    respond_error({405, "method_not_allowed", "method not allowed on this endpoint (allowed: " + allow + ")"}, false,
                  {{"Allow", allow}});
  }

  // Whether the request may use `route`: always without API keys; with them, when the
  // route's group is open or the request carries one of the keys.
  bool authorized(const Route& route) const {
    const auto field = request_.find(http::field::authorization);
    return server_.options.admits(route_access_group(route.id),
                                 field == request_.end() ? std::nullopt
                                                         : std::optional<std::string_view>(std::string_view(
                                                               field->value().data(), field->value().size())));
  }

  void preflight(const Route& route) {
    const auto origin = request_[http::field::origin];
    const auto asked = request_[http::field::access_control_request_method];
    const auto headers = server_.options.cors.preflight(std::string_view(origin.data(), origin.size()),
                                                        std::string_view(asked.data(), asked.size()), route.method);
    if (!headers) return not_allowed(route);
    respond(http::status::no_content, "", "text/plain", *headers);  // respond() adds the allowed origin
  }

  void respond_error(const ApiError& error, bool retry_after = false, Headers headers = {}) {
    if (retry_after) headers.emplace_back("Retry-After", "1");
    respond(static_cast<http::status>(error.status), render_error(error), "application/json", headers);
  }

  void respond_json(http::status status, std::string body) { respond(status, std::move(body), "application/json"); }

  void respond(http::status status, std::string body, const char* content_type, const Headers& headers = {}) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    server_.metrics.request_latency.observe(seconds);
    server_.metrics.count_request(target_, static_cast<int>(status));
    if (!open_) return;
    auto response = std::make_shared<http::response<http::string_body>>(status, 11);
    response->set(http::field::server, "geoalign");
    response->set(http::field::content_type, content_type);
    for (const auto& [name, value] : headers) response->set(name, value);
    const auto origin = request_[http::field::origin];
    for (const auto& [name, value] : server_.options.cors.answer_headers(std::string_view(origin.data(), origin.size()))) {
      response->set(name, value);
    }
    response->keep_alive(keep_alive_ && !server_.draining);
    response->body() = std::move(body);
    response->prepare_payload();
    // A response to HEAD says how long the body would be, and sends none.
    if (head_only_) response->body().clear();
    phase_ = Phase::Writing;
    expire_after(stream_, server_.options.write_timeout);
    const auto held = static_cast<std::int64_t>(response->body().size());
    server_.metrics.unread_answer_bytes += held;
    http::async_write(stream_, *response, [self = shared_from_this(), response, held](beast::error_code ec, std::size_t) {
      self->server_.metrics.unread_answer_bytes -= held;
      self->stream_.expires_never();
      if (ec == beast::error::timeout) ++self->server_.metrics.write_timeouts;
      if (ec) return self->close();
      if (!response->keep_alive()) return self->linger();
      self->read_request();
    });
  }

  // Closes after an answer that ends the connection, but lets the client finish sending
  // first: closing with its bytes unread makes the kernel reset the connection, and the
  // client loses the answer (a 413 to a large body above all). Reads are discarded until
  // the client closes, kLingerBytes have come or kLinger has passed.
  void linger() {
    if (server_.draining) return close();  // shutting down: the deadline is for answers, not for this
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    phase_ = Phase::Writing;  // a drain closes it as it would a write
    stream_.expires_after(kLinger);
    discard(0);
  }

  void discard(std::size_t discarded) {
    if (discarded > kLingerBytes) return close();
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(kReadChunk), [self = shared_from_this(), discarded](beast::error_code ec, std::size_t n) {
      if (ec) return self->close();  // the client closed, or the linger time is up
      self->discard(discarded + n);
    });
  }

  void close() {
    if (!open_) return;
    open_ = false;
    // Nobody is left to answer: let the batcher skip the request, and drop this session's
    // hold on it (its `done` callback holds the session: a cycle until it runs).
    if (inflight_) {
      if (!inflight_->cancelled.exchange(true)) ++server_.metrics.hangups;
      inflight_.reset();
    }
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
    timer_.cancel();
    --server_.metrics.open_connections;
    server_.connection_closed(this);
  }

  beast::tcp_stream stream_;
  Server::Impl& server_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  std::shared_ptr<InferenceRequest> inflight_;
  std::chrono::steady_clock::time_point started_;
  const char* target_ = "other";
  Phase phase_ = Phase::Idle;
  bool keep_alive_ = true;
  bool head_only_ = false;  // the request is HEAD: headers only in the answer
  bool open_ = true;
  bool watching_ = false;
  bool peer_finished_sending_ = false;
};

void Server::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (draining || !acceptor.is_open()) return;
    if (ec) return on_accept_error(ec);
    if (accept_failures > 0) {
      std::fprintf(stderr, "geoalign serve: accepting again after %zu failed accepts\n", accept_failures);
      accept_failures = 0;
      accept_backoff = {};
    }
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    try {
      if (options.max_connections > 0 && connections.size() >= options.max_connections) {
        refuse(std::move(socket));
      } else {
        std::make_shared<Session>(std::move(socket), *this)->start();
      }
    } catch (const std::exception& e) {  // e.g. out of memory: this connection is dropped
      std::fprintf(stderr, "geoalign serve: cannot start a connection: %s\n", e.what());
    }
    accept();
  });
}

namespace {

// A connection past --max-connections: answered 503 at once, without reading its request,
// then closed once the client has finished sending (or after kLinger), so that the kernel
// does not reset the connection under the answer.
class Refusal : public std::enable_shared_from_this<Refusal> {
 public:
  Refusal(tcp::socket socket, asio::io_context& io) : socket_(std::move(socket)), timer_(io) {}

  void start(std::size_t max_connections) {
    const std::string body = render_error(
        {503, "unavailable", "the server has " + std::to_string(max_connections) + " connections open; retry shortly"});
    answer_ = "HTTP/1.1 503 Service Unavailable\r\nServer: geoalign\r\nContent-Type: application/json\r\n"
              "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
              std::to_string(body.size()) + "\r\n\r\n" + body;
    timer_.expires_after(kLinger);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->close();
    });
    asio::async_write(socket_, asio::buffer(answer_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      beast::error_code ignored;
      self->socket_.shutdown(tcp::socket::shutdown_send, ignored);
      self->discard();
    });
  }

 private:
  void discard() {
    socket_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      self->discard();
    });
  }
  void close() {
    beast::error_code ignored;
    timer_.cancel();
    socket_.close(ignored);
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  std::string answer_;
  std::array<char, 4096> scratch_{};
};

}  // namespace

void Server::Impl::refuse(tcp::socket socket) {
  ++metrics.refused_connections;
  std::make_shared<Refusal>(std::move(socket), io)->start(options.max_connections);
}

// A failed accept (most often EMFILE: out of descriptors) must not end accepting: the
// connection stays in the backlog, so accept again after a back-off (5 ms doubling to
// 1 s), which also keeps an unrelieved error from spinning the I/O thread.
void Server::Impl::on_accept_error(const beast::error_code& ec) {
  ++metrics.accept_errors;
  if (accept_failures++ == 0) {
    std::fprintf(stderr, "geoalign serve: accept failed: %s; retrying with back-off\n", ec.message().c_str());
  }
  accept_backoff = std::clamp(accept_backoff * 2, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
  accept_timer.expires_after(accept_backoff);
  accept_timer.async_wait([this](beast::error_code tec) {
    if (!tec && !draining) accept();
  });
}

// The first terminating signal starts the drain; another one ends it at once.
void Server::Impl::watch_signals(asio::signal_set& set) {
  set.async_wait([this, &set](beast::error_code ec, int) {
    if (ec) return;
    if (!draining) {
      begin_drain();
      if (!finished) watch_signals(set);
    } else {
      force_stop("second signal");
    }
  });
}

void Server::Impl::watch_hangups() {
  hangups.async_wait([this](beast::error_code ec, int) {
    if (ec) return;
    if (options.api_keys && options.api_keys->reloads()) {
      // The message names the file and a bad line's number, never a key.
      try {
        std::fprintf(stderr, "geoalign serve: SIGHUP: %zu API keys in use, the file read again\n",
                     options.api_keys->reload());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "geoalign serve: SIGHUP: %s; the %zu API keys in use stay\n", e.what(),
                     options.api_keys->size());
      }
    } else {
      std::fprintf(stderr, "geoalign serve: SIGHUP ignored (nothing to reload); SIGTERM stops the server\n");
    }
    watch_hangups();
  });
}

void Server::Impl::begin_drain() {
  if (draining) return;
  draining = true;
  std::fprintf(stderr, "geoalign serve: draining: answering accepted requests, then exiting\n");
  beast::error_code ignored;
  acceptor.close(ignored);
  accept_timer.cancel();
  // Sessions remove themselves from the set as they close; copy first.
  for (Session* s : std::vector<Session*>(connections.begin(), connections.end())) s->close_if_idle();
  if (connections.empty()) return finish();
  if (options.drain_timeout.count() > 0) {
    drain_timer.expires_after(options.drain_timeout);
    drain_timer.async_wait([this](beast::error_code ec) {
      if (!ec) force_stop("drain deadline passed");
    });
  }
}

void Server::Impl::force_stop(const char* why) {
  if (finished) return;
  std::fprintf(stderr, "geoalign serve: %s: closing %zu open connections\n", why, connections.size());
  for (Session* s : std::vector<Session*>(connections.begin(), connections.end())) s->force_close();
  finish();
  // Results still in the batcher would arrive later; do not wait for them.
  io.stop();
}

void Server::Impl::connection_closed(Session* session) {
  connections.erase(session);
  if (draining && connections.empty()) finish();
}

void Server::Impl::finish() {
  if (finished) return;
  finished = true;
  beast::error_code ignored;
  signals.cancel(ignored);
  more_signals.cancel(ignored);
  hangups.cancel(ignored);
  drain_timer.cancel();
  accept_timer.cancel();
  work.reset();
}

Server::Server(const runtime::PairScorer& scorer, runtime::Batcher& batcher, Metrics& metrics, ServerOptions options,
               const SearchKind* search)
    : impl_(std::make_unique<Impl>(scorer, batcher, metrics, std::move(options), search)) {
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

bool Server::ready() const { return impl_->ready.load(); }

void Server::set_ready(bool ready) { impl_->ready = ready; }

void Server::stop() {
  asio::post(impl_->io, [impl = impl_.get()] { impl->begin_drain(); });
}

void Server::run() {
  Impl& s = *impl_;
  s.work.emplace(s.io.get_executor());
  s.watch_signals(s.signals);
  s.watch_signals(s.more_signals);
  s.watch_hangups();
  s.accept();
  // A handler that throws ends that connection's work, not the server: log and go on.
  for (;;) {
    try {
      s.io.run();
      return;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "geoalign serve: internal error in the I/O loop: %s\n", e.what());
    }
  }
}

}  // namespace geoalign::serve
