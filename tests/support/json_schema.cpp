#include "support/json_schema.h"

#include <algorithm>
#include <cmath>

namespace geoalign::testing {

namespace {

using nlohmann::json;

bool has_type(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    return value.is_number_integer() || (value.is_number_float() && std::trunc(value.get<double>()) == value.get<double>());
  }
  return false;
}

class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  void check(const json& schema, const json& value, const std::string& path) {
    if (schema.contains("$ref")) return check(resolve(schema["$ref"].get<std::string>(), path), value, path);
    if (schema.contains("type") && !type_ok(schema["type"], value)) {
      return fail(path, "is " + std::string(value.type_name()) + ", not " + schema["type"].dump());
    }
    if (schema.contains("enum")) {
      const json& options = schema["enum"];
      if (std::find(options.begin(), options.end(), value) == options.end()) {
        fail(path, value.dump() + " is not one of " + options.dump());
      }
    }
    if (value.is_number()) check_range(schema, value.get<double>(), path);
    if (value.is_object()) check_object(schema, value, path);
    if (value.is_array()) check_array(schema, value, path);
  }

  std::vector<std::string> problems;

 private:
  // A JSON pointer ("#/components/schemas/Error") into the document.
  const json& resolve(const std::string& ref, const std::string& path) {
    static const json kAnything = json::object();
    if (ref.rfind("#", 0) != 0) {
      fail(path, "cannot follow $ref " + ref);
      return kAnything;
    }
    const json::json_pointer pointer(ref.substr(1));
    if (!root_.contains(pointer)) {
      fail(path, "$ref " + ref + " points nowhere");
      return kAnything;
    }
    return root_.at(pointer);
  }

  static bool type_ok(const json& type, const json& value) {
    if (type.is_string()) return has_type(value, type.get<std::string>());
    return std::any_of(type.begin(), type.end(), [&](const json& t) { return has_type(value, t.get<std::string>()); });
  }

  void check_range(const json& schema, double v, const std::string& path) {
    if (schema.contains("minimum") && v < schema["minimum"].get<double>()) fail(path, "is below " + schema["minimum"].dump());
    if (schema.contains("maximum") && v > schema["maximum"].get<double>()) fail(path, "is above " + schema["maximum"].dump());
  }

  void check_object(const json& schema, const json& value, const std::string& path) {
    for (const auto& name : schema.value("required", json::array())) {
      if (!value.contains(name.get<std::string>())) fail(path, "lacks required " + name.dump());
    }
    const json properties = schema.value("properties", json::object());
    for (const auto& [name, v] : value.items()) {
      const std::string at = path + "." + name;
      if (properties.contains(name)) {
        check(properties[name], v, at);
      } else if (schema.contains("additionalProperties")) {
        const json& extra = schema["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>()) fail(at, "is not a documented property");
        if (extra.is_object()) check(extra, v, at);
      }
    }
  }

  void check_array(const json& schema, const json& value, const std::string& path) {
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>()) {
      fail(path, "has fewer than " + schema["minItems"].dump() + " items");
    }
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<std::size_t>()) {
      fail(path, "has more than " + schema["maxItems"].dump() + " items");
    }
    if (!schema.contains("items")) return;
    for (std::size_t i = 0; i < value.size(); ++i) check(schema["items"], value[i], path + "[" + std::to_string(i) + "]");
  }

  void fail(const std::string& path, const std::string& what) { problems.push_back(path + ": " + what); }

  const json& root_;
};

}  // namespace

std::vector<std::string> schema_problems(const json& schema, const json& value, const json& root) {
  Checker checker(root);
  checker.check(schema, value, "$");
  return checker.problems;
}

}  // namespace geoalign::testing
