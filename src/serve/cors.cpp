#include "serve/cors.h"

#include <algorithm>

#include "geoalign/error.h"

namespace geoalign::serve {

namespace {

// Headers a browser may send on a cross-origin call: JSON bodies, the API key, and
// KServe's binary tensor header.
constexpr const char* kAllowedHeaders = "Authorization, Content-Type, Inference-Header-Content-Length";
// How long a browser may reuse a preflight's answer.
constexpr const char* kPreflightMaxAgeSeconds = "600";

bool is_origin(std::string_view origin) {
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return false;
  const std::string_view rest = origin.substr(scheme_end + 3);
  if (rest.empty()) return false;
  return std::all_of(rest.begin(), rest.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == ':' || c == '[' || c == ']';
  });
}

}  // namespace

CorsPolicy::CorsPolicy(std::vector<std::string> origins) : origins_(std::move(origins)) {
  for (const std::string& origin : origins_) {
    if (origin == "*") {
      any_ = true;
    } else if (!is_origin(origin)) {
      throw Error("--cors-allow-origin \"" + origin +
                  "\" is not an origin: give scheme://host[:port] as the browser sends it (no path, no trailing "
                  "slash), or *");
    }
  }
}

bool CorsPolicy::allows(std::string_view origin) const {
  if (origin.empty() || !enabled()) return false;
  return any_ || std::find(origins_.begin(), origins_.end(), origin) != origins_.end();
}

HeaderList CorsPolicy::answer_headers(std::string_view origin) const {
  if (!enabled()) return {};
  // Vary: a cache must not hand one origin's answer (with its allow header, or without)
  // to another.
  HeaderList headers = {{"Vary", "Origin"}};
  if (allows(origin)) headers.emplace_back("Access-Control-Allow-Origin", any_ ? "*" : std::string(origin));
  return headers;
}

std::optional<HeaderList> CorsPolicy::preflight(std::string_view origin, std::string_view requested_method,
                                                std::string_view route_method) const {
  const bool method_ok = requested_method == route_method || (route_method == "GET" && requested_method == "HEAD");
  if (!allows(origin) || !method_ok) return std::nullopt;
  return HeaderList{{"Access-Control-Allow-Methods", route_method == "GET" ? "GET, HEAD" : std::string(route_method)},
                    {"Access-Control-Allow-Headers", kAllowedHeaders},
                    {"Access-Control-Max-Age", kPreflightMaxAgeSeconds}};
}

}  // namespace geoalign::serve
