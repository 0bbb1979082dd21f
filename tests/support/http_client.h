#pragma once

#include <map>
#include <string>

namespace geoalign::testing {

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string retry_after;
  std::map<std::string, std::string> headers;  // every field, by its lower-case name
};

// One blocking request on a fresh connection to 127.0.0.1:port, with `headers` besides
// Host and Content-Type.
HttpResponse http_request(unsigned short port, const std::string& method, const std::string& target,
                          const std::string& body = "", const std::map<std::string, std::string>& headers = {});

}  // namespace geoalign::testing
