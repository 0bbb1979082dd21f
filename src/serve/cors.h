#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace geoalign::serve {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// Which pages on other origins may call the server from a browser (serve
// --cors-allow-origin). Without any origin the server sends no CORS headers, and browsers
// keep other origins' pages from reading its answers; its own page (the playground) is
// same-origin and needs none.
class CorsPolicy {
 public:
  // Each origin is "*" (every origin) or scheme://host[:port], as browsers send it in the
  // Origin header; anything else (a path, a trailing slash) is an Error naming it.
  CorsPolicy() = default;
  explicit CorsPolicy(std::vector<std::string> origins);

  bool enabled() const { return !origins_.empty(); }
  // For an answer to a request whose Origin header is `origin` (empty: none): the
  // Access-Control-Allow-Origin and Vary headers, or none for an origin not allowed.
  HeaderList answer_headers(std::string_view origin) const;
  // For a preflight (OPTIONS with Access-Control-Request-Method) to a route that takes
  // `route_method`: the headers a 204 adds to answer_headers(origin), or nullopt when the
  // origin or the method asked for is not allowed.
  std::optional<HeaderList> preflight(std::string_view origin, std::string_view requested_method,
                                      std::string_view route_method) const;

 private:
  bool allows(std::string_view origin) const;

  std::vector<std::string> origins_;
  bool any_ = false;
};

}  // namespace geoalign::serve
