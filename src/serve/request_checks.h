#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/api.h"

namespace geoalign::serve {

// The checks every JSON endpoint applies to its fields, with the same statuses and
// messages (serve/api.cpp, serve/compat_api.cpp).

// 400 invalid_request.
ApiError bad_request(const std::string& message);
// 422 for text that is not UTF-8 or holds nothing but blanks, naming `where`.
std::optional<ApiError> check_text(const std::string& s, const std::string& where);
// 413 for more than max_items items.
ApiError too_many_items(std::size_t n, const char* what, std::size_t max_items);
// Each element of `array` as a checked string into `out` ("where[3] must be a string").
std::optional<ApiError> take_strings(const nlohmann::json& array, const std::string& where,
                                     std::vector<std::string>& out);
// A field that must be true or false when present; `out` keeps its value when absent.
std::optional<ApiError> take_flag(const nlohmann::json& body, const char* name, bool& out);
// 400 for a field the endpoint does not take, listing those it does.
std::optional<ApiError> unknown_field(const nlohmann::json& body, std::initializer_list<std::string_view> known);

}  // namespace geoalign::serve
