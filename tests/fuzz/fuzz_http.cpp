// libFuzzer: arbitrary bytes as they would arrive on a connection to `geoalign serve`,
// the only parser facing the network. Beast's request parser runs with the server's
// limits (header 16 KiB, body 1 MiB), fed in chunks of a fuzzer-chosen size as a socket
// would deliver them, with pipelined requests parsed one after another. Each complete
// request for an inference endpoint goes through the JSON API the server uses
// (parse_request, then render_response for a result of the right size, or
// render_error), a KServe request with Inference-Header-Content-Length through the
// binary tensor data parser as well. A crash, a sanitizer report or an exception is a bug.
#include <utility>  // Boost 1.74's asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/buffer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "serve/api.h"
#include "serve/http_server.h"
#include "serve/search_request.h"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using namespace geoalign::serve;

const std::size_t kMaxBody = ServerOptions{}.max_body_bytes;
constexpr std::size_t kMaxItems = 64;

void handle(const http::request<http::string_body>& request) {
  const std::string target(request.target());
  const auto endpoint = inference_endpoint(target);
  if (!endpoint) {
    render_error({404, "not_found", "no such endpoint: " + target});
    return;
  }
  std::optional<std::string_view> header_length;
  if (const auto field = request.find("Inference-Header-Content-Length"); field != request.end()) {
    header_length = std::string_view(field->value().data(), field->value().size());
  }
  auto parsed = parse_request(*endpoint, request.body(), kMaxItems, header_length);
  if (auto* error = std::get_if<ApiError>(&parsed)) {
    if (error->status < 400 || error->status > 499) std::abort();
    render_error(*error);
    return;
  }
  const auto& p = std::get<ParsedRequest>(parsed);
  const bool pairs =
      *endpoint == Endpoint::Match || *endpoint == Endpoint::KServeInfer || *endpoint == Endpoint::TeiRerank;
  // Search and rerank answer an empty list with an empty one; the others need an item.
  const bool may_be_empty = *endpoint == Endpoint::Search || *endpoint == Endpoint::TeiRerank;
  if ((p.first.empty() && !may_be_empty) || p.first.size() > kMaxItems) std::abort();
  if (pairs && p.second.size() != p.first.size()) std::abort();
  SearchRequest done;  // holds what every endpoint renders (search's and parse's results too)
  done.first = p.first;
  done.second = p.second;
  done.outcome = geoalign::runtime::InferenceRequest::Outcome::Ok;
  if (pairs) {
    geoalign::MatchResult m;
    m.label = "exact_match";
    m.score = 0.75f;
    m.p_not_match = 0.25f;
    m.p_exact_match = 0.75f;
    done.matches.assign(p.first.size(), m);
  } else {
    done.vectors.assign(p.first.size(), std::vector<float>(4, 0.5f));
  }
  for (const auto& query : p.first) {
    done.results.push_back({{"query", query}, {"results", {{{"id", "1"}, {"text", query}, {"score", 0.5}}}}});
  }
  render_response(*endpoint, p, done);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;  // bytes per "read" from the socket
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string pending;  // read but not yet consumed by a parser, as in the server's buffer
  for (int requests = 0; requests < 64; ++requests) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kMaxBody);
    parser.header_limit(kMaxHeaderBytes);
    beast::error_code ec;
    while (!parser.is_done()) {
      ec = {};
      const std::size_t used = pending.empty() ? 0 : parser.put(boost::asio::buffer(pending), ec);
      pending.erase(0, used);
      if (ec && ec != http::error::need_more) break;
      if (parser.is_done()) break;
      if (used == 0) {  // the parser needs more bytes: "read" the next chunk
        if (input.empty()) {
          if (pending.empty() && !parser.got_some()) return 0;  // the client closed between requests
          ec = {};
          parser.put_eof(ec);
          break;
        }
        const std::size_t take = std::min(chunk, input.size());
        pending.append(input.substr(0, take));
        input.remove_prefix(take);
      }
    }
    if (ec || !parser.is_done()) return 0;  // the server answers 400 or 413, or the client left
    handle(parser.get());
    if (!parser.get().keep_alive()) return 0;
  }
  return 0;
}
