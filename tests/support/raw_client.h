#pragma once

#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <string>

namespace geoalign::testing {

// A hand-driven HTTP/1.1 connection to 127.0.0.1:port for tests that need control over
// what is sent when (pipelining, half-close, Expect, slow or silent clients). Every read
// waits at most `limit` and reports a timeout as beast::error::timeout, so a server that
// never answers fails the test instead of hanging it.
class RawClient {
 public:
  using Response = boost::beast::http::response<boost::beast::http::string_body>;

  // receive_buffer > 0 shrinks the socket's receive buffer before connecting, so a
  // client that does not read stalls the server's writes quickly.
  explicit RawClient(unsigned short port, int receive_buffer = 0);

  void send(const std::string& bytes);
  void shutdown_send();
  // Closes with a reset (SO_LINGER 0), the way a client that gives up abruptly does.
  void reset();

  boost::beast::error_code read(Response& response, std::chrono::milliseconds limit = std::chrono::seconds(10));
  // Reads an interim (1xx) or final response's header only.
  boost::beast::error_code read_header(int& status, std::chrono::milliseconds limit = std::chrono::seconds(10));
  // True when the server closes the connection within `limit` (bytes it sends meanwhile
  // are read and dropped); false on a timeout.
  bool closed_by_server(std::chrono::milliseconds limit = std::chrono::seconds(10));

 private:
  boost::asio::io_context io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
};

// A POST request with a JSON body, as bytes on the wire.
std::string post_request(const std::string& target, const std::string& body, const std::string& extra_headers = "");

}  // namespace geoalign::testing
