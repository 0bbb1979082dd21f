#include "model/json_file.h"

#include <cstdint>
#include <fstream>
#include <string>

#include "common/open_file.h"
#include "geoalign/error.h"

namespace geoalign::model {

namespace {
nlohmann::json parse_json_text(const std::filesystem::path& path, const std::string& text,
                               const nlohmann::json::parser_callback_t& callback) {
  try {
    return nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path.string() + ": invalid JSON at byte " + std::to_string(e.byte));
  } catch (const nlohmann::json::exception&) {  // e.g. a number too large for any type
    throw Error(path.string() + ": invalid JSON (a value is out of range)");
  }
}
}  // namespace

nlohmann::json read_json_file(const std::filesystem::path& path, std::size_t max_bytes) {
  return parse_json_text(path, read_whole_file(path, max_bytes), nullptr);
}

std::string read_whole_file(const std::filesystem::path& path, std::size_t max_bytes) {
  std::error_code error;
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error)) {
    throw Error(path.string() + " is not a regular file");
  }
  std::ifstream in = open_for_reading(path);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error("cannot read " + path.string());
  if (static_cast<std::uint64_t>(size) > max_bytes) {
    throw Error(path.string() + " is " + std::to_string(size) + " bytes; at most " + std::to_string(max_bytes) +
                " are expected");
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) throw Error("cannot read " + path.string());
  return text;
}

nlohmann::json read_json_file(const std::filesystem::path& path, const nlohmann::json::parser_callback_t& callback) {
  return parse_json_text(path, read_whole_file(path), callback);
}

JsonFields::JsonFields(const nlohmann::json& object, std::string where) : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw Error(where_ + ": expected a JSON object");
}

void JsonFields::fail(const std::string& key, const std::string& problem) const {
  throw Error(where_ + ": field \"" + key + "\" " + problem);
}

bool JsonFields::has(const std::string& key) const { return object_.contains(key) && !object_.at(key).is_null(); }

const nlohmann::json& JsonFields::raw(const std::string& key) const {
  if (!has(key)) fail(key, "is missing");
  return object_.at(key);
}

std::int64_t JsonFields::integer(const std::string& key) const {
  const auto& v = raw(key);
  if (!v.is_number_integer()) fail(key, "must be an integer");
  return v.get<std::int64_t>();
}

std::int64_t JsonFields::integer(const std::string& key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

double JsonFields::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  const auto& v = raw(key);
  if (!v.is_number()) fail(key, "must be a number");
  return v.get<double>();
}

bool JsonFields::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& v = raw(key);
  if (!v.is_boolean()) fail(key, "must be true or false");
  return v.get<bool>();
}

std::string JsonFields::string(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const auto& v = raw(key);
  if (!v.is_string()) fail(key, "must be a string");
  return v.get<std::string>();
}

JsonFields JsonFields::object(const std::string& key) const {
  const auto& v = raw(key);
  if (!v.is_object()) fail(key, "must be an object");
  return JsonFields(v, where_ + ": " + key);
}

}  // namespace geoalign::model
