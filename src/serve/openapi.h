#pragma once

#include <string_view>

namespace geoalign::serve {

// The server's OpenAPI 3.1 document (GET /openapi.json): src/serve/openapi.json, which
// CMake compiles into the binary so the server needs no file beside it.
std::string_view openapi_document();

}  // namespace geoalign::serve
