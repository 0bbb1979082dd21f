#pragma once

#include <nlohmann/json.hpp>

#include "geoalign/parser.h"

namespace geoalign::geo {

// A parse as `geoalign parse` prints it and the Python package returns it:
// {"text", "elements": [{"tag", "text", "start", "end"}], "admin": {"prov", "city",
// "district", "town", "adcode", "inferred", "ambiguous"[, "candidates"][, "guess"][, "historical"]}}. One function,
// so that every front end gives the same JSON for the same parse.
nlohmann::json parse_json(const ParsedAddress& parsed);

}  // namespace geoalign::geo
