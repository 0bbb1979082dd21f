#pragma once

#include <string>
#include <string_view>

namespace geoalign::serve {

// The playground (GET /): one page of HTML, CSS and script over /v1/match, /v1/parse and
// /v1/search. It is src/serve/playground.html, which CMake compiles into the binary so
// the server needs no file beside it.
// `model_name` fills the page's {{model}} (the KServe model whose labels it shows).
std::string playground_page(std::string_view model_name);

// Sent with the page: it may load nothing and talk to no one but its own server. Its
// script and style are inline, and it writes answers as text, never as markup.
inline constexpr std::string_view kPlaygroundContentSecurityPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace geoalign::serve
