#pragma once

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace geoalign::model {

// A file's bytes, read in one call; errors name the file (a folder or a device in its
// place too, and a file over max_bytes).
std::string read_whole_file(const std::filesystem::path& path,
                            std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

// Parses a JSON file; errors name the file and the byte where parsing failed.
nlohmann::json read_json_file(const std::filesystem::path& path,
                              std::size_t max_bytes = std::numeric_limits<std::size_t>::max());
// The same with nlohmann's parser callback, which may consume values as they are parsed
// and drop them from the document.
nlohmann::json read_json_file(const std::filesystem::path& path, const nlohmann::json::parser_callback_t& callback);

// Typed access to one field of a JSON object; errors name the file and the field.
class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string where);

  bool has(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback) const;
  double number(const std::string& key, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string string(const std::string& key, const std::string& fallback) const;
  JsonFields object(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key) const;
  const std::string& where() const { return where_; }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  const nlohmann::json& object_;
  std::string where_;
};

}  // namespace geoalign::model
