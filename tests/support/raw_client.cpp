#include "support/raw_client.h"

namespace geoalign::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

RawClient::RawClient(unsigned short port, int receive_buffer) : stream_(io_) {
  stream_.socket().open(tcp::v4());
  if (receive_buffer > 0) stream_.socket().set_option(asio::socket_base::receive_buffer_size(receive_buffer));
  stream_.socket().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
}

void RawClient::send(const std::string& bytes) { asio::write(stream_.socket(), asio::buffer(bytes)); }

void RawClient::shutdown_send() { stream_.socket().shutdown(tcp::socket::shutdown_send); }

void RawClient::reset() {
  stream_.socket().set_option(asio::socket_base::linger(true, 0));
  stream_.socket().close();
}

beast::error_code RawClient::read(Response& response, std::chrono::milliseconds limit) {
  beast::error_code result = asio::error::would_block;
  stream_.expires_after(limit);
  http::async_read(stream_, buffer_, response, [&](beast::error_code ec, std::size_t) { result = ec; });
  io_.restart();
  io_.run();
  return result;
}

beast::error_code RawClient::read_header(int& status, std::chrono::milliseconds limit) {
  beast::error_code result = asio::error::would_block;
  http::response_parser<http::empty_body> parser;
  stream_.expires_after(limit);
  http::async_read_header(stream_, buffer_, parser, [&](beast::error_code ec, std::size_t) { result = ec; });
  io_.restart();
  io_.run();
  status = parser.get().result_int();
  return result;
}

bool RawClient::closed_by_server(std::chrono::milliseconds limit) {
  buffer_.clear();
  stream_.expires_after(limit);
  beast::error_code result;
  std::function<void()> next = [&] {
    stream_.async_read_some(buffer_.prepare(65536), [&](beast::error_code ec, std::size_t) {
      if (ec) {
        result = ec;
        return;
      }
      next();
    });
  };
  next();
  io_.restart();
  io_.run();
  return result != beast::error::timeout;
}

std::string post_request(const std::string& target, const std::string& body, const std::string& extra_headers) {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace geoalign::testing
