#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace geoalign::testing {

// A JSON Schema subset, enough to check the server's OpenAPI document against its own
// examples and answers without a dependency: type (a name or a list of names), enum,
// properties, required, additionalProperties (false or a schema), items, minItems,
// maxItems, minimum, maximum, and $ref to "#/..." pointers into `root`. Other keywords
// (description, contentMediaType, ...) are ignored. Returns the problems found, each
// naming the value's path ("$.results[0].label: ..."); empty when the value is valid.
std::vector<std::string> schema_problems(const nlohmann::json& schema, const nlohmann::json& value,
                                         const nlohmann::json& root);

}  // namespace geoalign::testing
