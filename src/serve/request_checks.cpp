#include "serve/request_checks.h"

#include <algorithm>

#include "text/excerpt.h"
#include "text/markup.h"
#include "text/utf8.h"

namespace geoalign::serve {

ApiError bad_request(const std::string& message) { return {400, "invalid_request", message}; }

// Empty and whitespace-only addresses carry nothing to match.
std::optional<ApiError> check_text(const std::string& s, const std::string& where) {
  if (text::find_invalid_utf8(s)) return ApiError{422, "invalid_text", where + " is not valid UTF-8"};
  if (text::is_blank_address(s)) return ApiError{422, "invalid_text", where + " is empty"};
  return std::nullopt;
}

ApiError too_many_items(std::size_t n, const char* what, std::size_t max_items) {
  return {413, "too_large", std::to_string(n) + " " + what + " in one request; the limit is " + std::to_string(max_items)};
}

std::optional<ApiError> take_strings(const nlohmann::json& array, const std::string& where,
                                     std::vector<std::string>& out) {
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!array[i].is_string()) return bad_request(at + " must be a string");
    out.push_back(array[i].get<std::string>());
    if (auto e = check_text(out.back(), at)) return e;
  }
  return std::nullopt;
}

std::optional<ApiError> take_flag(const nlohmann::json& body, const char* name, bool& out) {
  if (!body.contains(name)) return std::nullopt;
  if (!body[name].is_boolean()) return bad_request("\"" + std::string(name) + "\" must be true or false");
  out = body[name].get<bool>();
  return std::nullopt;
}

// A body holds only its endpoint's fields: a misspelt option ("explian": true) is an
// error, not silently a request without it. (KServe bodies follow their protocol's wider
// rules.)
std::optional<ApiError> unknown_field(const nlohmann::json& body, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string names;
      for (const auto k : known) names += std::string(names.empty() ? "" : ", ") + "\"" + std::string(k) + "\"";
      return bad_request("unknown field \"" + text::excerpt(key) + "\" (this endpoint takes " + names + ")");
    }
  }
  return std::nullopt;
}

}  // namespace geoalign::serve
