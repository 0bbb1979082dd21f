#include "loadtest/load_generator.h"

#include <algorithm>
#include <cmath>
#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <functional>
#include <memory>

#include "geoalign/error.h"

namespace geoalign::loadtest {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

Target Target::parse(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) throw Error("--url must start with http:// (got " + url + ")");
  const std::string rest = url.substr(scheme.size());
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  Target t;
  t.path = slash == std::string::npos ? "/v1/match" : rest.substr(slash);
  const auto colon = authority.rfind(':');
  t.host = colon == std::string::npos ? authority : authority.substr(0, colon);
  t.port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
  if (t.host.empty()) throw Error("--url has no host: " + url);
  return t;
}

double LevelResult::percentile(double p) const {
  if (latencies_ms.empty()) return 0;
  const auto rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(latencies_ms.size() - 1) + 0.5);
  return latencies_ms[std::min(rank, latencies_ms.size() - 1)];
}

std::uint64_t LevelResult::error_count() const {
  std::uint64_t n = 0;
  for (const auto& [kind, count] : errors) n += count;
  return n;
}

namespace {

class Run;

// One keep-alive connection; sends a request when asked and reports the outcome.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Run& run, asio::io_context& io) : run_(run), stream_(io) {}
  void send(Clock::time_point scheduled);
  bool busy() const { return busy_; }

 private:
  void write();
  void finish(const std::string& error);

  Run& run_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  Clock::time_point scheduled_;
  bool connected_ = false, busy_ = false;
};

class Run {
 public:
  Run(const Target& target, const std::vector<std::string>& bodies, const LoadOptions& options)
      : target_(target), bodies_(bodies), options_(options), timer_(io_) {
    endpoints_ = tcp::resolver(io_).resolve(target.host, target.port);
  }

  LevelResult go() {
    start_ = Clock::now();
    measure_from_ = start_ + options_.warmup;
    stop_at_ = measure_from_ + options_.duration;
    if (options_.rate > 0) {
      schedule_next();
    } else {
      for (std::size_t i = 0; i < options_.concurrency; ++i) {
        auto c = std::make_shared<Connection>(*this, io_);
        connections_.push_back(c);
        c->send(Clock::now());
      }
    }
    io_.run();
    result_.concurrency = options_.concurrency;
    result_.rate = options_.rate;
    result_.seconds = std::chrono::duration<double>(options_.duration).count();
    std::sort(result_.latencies_ms.begin(), result_.latencies_ms.end());
    return std::move(result_);
  }

  const tcp::resolver::results_type& endpoints() const { return endpoints_; }
  const Target& target() const { return target_; }
  const std::string& next_body() { return bodies_[next_body_++ % bodies_.size()]; }

  // Records one finished request; in the closed loop the connection goes again.
  void record(Connection& c, Clock::time_point scheduled, const std::string& error) {
    const auto now = Clock::now();
    if (scheduled >= measure_from_ && now <= stop_at_ + std::chrono::seconds(30)) {
      if (error.empty()) {
        ++result_.ok;
        result_.latencies_ms.push_back(std::chrono::duration<double, std::milli>(now - scheduled).count());
      } else {
        ++result_.errors[error];
      }
    }
    if (options_.rate == 0 && now < stop_at_) c.send(Clock::now());
    if (options_.rate > 0) next_idle_.push_back(c.shared_from_this());
  }

 private:
  void schedule_next() {
    // Whole nanoseconds from the start: the requests a window holds are then exactly
    // rate x duration (at 100/s the tenth request falls on 100 ms, not a rounding before it).
    const auto when = start_ + std::chrono::nanoseconds(std::llround(static_cast<double>(sent_) * 1e9 / options_.rate));
    if (when >= stop_at_) return;
    timer_.expires_at(when);
    timer_.async_wait([this, when](beast::error_code ec) {
      if (ec) return;
      ++sent_;
      std::shared_ptr<Connection> c;
      while (!next_idle_.empty() && !c) {
        c = next_idle_.front();
        next_idle_.pop_front();
        if (c->busy()) c.reset();
      }
      if (!c) {
        if (connections_.size() < options_.max_connections) {
          c = std::make_shared<Connection>(*this, io_);
          connections_.push_back(c);
        } else {
          if (when >= measure_from_) ++result_.errors["client_saturated"];
        }
      }
      if (c) c->send(when);
      schedule_next();
    });
  }

  Target target_;
  const std::vector<std::string>& bodies_;
  LoadOptions options_;
  asio::io_context io_{1};
  asio::steady_timer timer_;
  tcp::resolver::results_type endpoints_;
  std::vector<std::shared_ptr<Connection>> connections_;
  std::deque<std::shared_ptr<Connection>> next_idle_;
  Clock::time_point start_, measure_from_, stop_at_;
  std::size_t next_body_ = 0, sent_ = 0;
  LevelResult result_;
};

void Connection::send(Clock::time_point scheduled) {
  scheduled_ = scheduled;
  busy_ = true;
  request_ = {http::verb::post, run_.target().path, 11};
  request_.set(http::field::host, run_.target().host);
  request_.set(http::field::content_type, "application/json");
  if (!run_.target().api_key.empty()) request_.set(http::field::authorization, "Bearer " + run_.target().api_key);
  request_.keep_alive(true);
  request_.body() = run_.next_body();
  request_.prepare_payload();
  if (connected_) return write();
  stream_.expires_after(std::chrono::seconds(30));
  stream_.async_connect(run_.endpoints(), [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
    if (ec) return self->finish("connect");
    self->connected_ = true;
    self->write();
  });
}

void Connection::write() {
  stream_.expires_after(std::chrono::seconds(60));
  http::async_write(stream_, request_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return self->finish("write");
    self->response_ = {};
    http::async_read(self->stream_, self->buffer_, self->response_, [self](beast::error_code rec, std::size_t) {
      if (rec == beast::error::timeout) return self->finish("timeout");
      if (rec) return self->finish("read");
      const int status = self->response_.result_int();
      if (!self->response_.keep_alive()) {
        beast::error_code ignored;
        self->stream_.socket().close(ignored);
        self->connected_ = false;
      }
      self->finish(status == 200 ? "" : "http_" + std::to_string(status));
    });
  });
}

void Connection::finish(const std::string& error) {
  if (!error.empty() && (error == "connect" || error == "write" || error == "read" || error == "timeout")) {
    beast::error_code ignored;
    stream_.socket().close(ignored);
    connected_ = false;
  }
  busy_ = false;
  run_.record(*this, scheduled_, error);
}

}  // namespace

LevelResult run_level(const Target& target, const std::vector<std::string>& bodies, const LoadOptions& options) {
  if (bodies.empty()) throw Error("no request bodies to send");
  Run run(target, bodies, options);
  return run.go();
}

}  // namespace geoalign::loadtest
