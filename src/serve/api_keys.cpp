#include "serve/api_keys.h"

#include <algorithm>
#include <fstream>

#include "geo/table_lines.h"
#include "geoalign/error.h"

namespace geoalign::serve {

namespace {

constexpr std::string_view kBearer = "Bearer ";

// Why `key` cannot be a key, or empty when it can.
std::string unusable(std::string_view key) {
  if (key.size() > ApiKeys::kMaxKeyBytes) return "longer than " + std::to_string(ApiKeys::kMaxKeyBytes) + " bytes";
  for (const char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return "a blank or control character inside the key (a header cannot carry it)";
  }
  return {};
}

std::string_view trimmed(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// Equal in time that depends on key.size() alone, not on where `given` first differs.
bool same_key(std::string_view given, std::string_view key) {
  unsigned diff = given.size() == key.size() ? 0u : 1u;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff |= g ^ static_cast<unsigned char>(key[i]);
  }
  return diff == 0;
}

}  // namespace

ApiKeys::ApiKeys(std::vector<std::string> given, std::filesystem::path file)
    : given_(std::move(given)), file_(std::move(file)) {
  for (std::size_t k = 0; k < given_.size(); ++k) {
    if (given_[k].empty()) throw Error("--api-key " + std::to_string(k + 1) + " is empty");
    if (const std::string why = unusable(given_[k]); !why.empty()) {
      throw Error("--api-key " + std::to_string(k + 1) + ": " + why);
    }
  }
  reload();
}

std::vector<std::string> ApiKeys::read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot open the API keys file " + file.string());
  std::vector<std::string> keys;
  geo::for_each_table_line(in, file.string(), [&](std::string_view line, std::size_t number) {
    const std::string_view key = trimmed(line);
    if (key.empty() || key.front() == '#') return;  // a blank or indented comment line
    if (const std::string why = unusable(key); !why.empty()) throw Error(geo::table_place(file.string(), number) + ": " + why);
    keys.emplace_back(key);
  });
  return keys;
}

std::size_t ApiKeys::reload() {
  std::vector<std::string> keys = given_;
  if (!file_.empty()) {
    std::vector<std::string> from_file = read(file_);
    keys.insert(keys.end(), from_file.begin(), from_file.end());
  }
  if (keys.empty()) {
    throw Error(file_.empty() ? std::string("no API keys given")
                              : "the API keys file " + file_.string() + " holds no key (and no --api-key was given)");
  }
  std::lock_guard lock(mutex_);
  keys_ = std::move(keys);
  return keys_.size();
}

std::size_t ApiKeys::size() const {
  std::lock_guard lock(mutex_);
  return keys_.size();
}

bool ApiKeys::admits(std::string_view authorization) const {
  // The scheme's name is case-insensitive (RFC 9110, 11.1).
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (authorization.size() <= kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), authorization.begin(),
                  [&](char a, char b) { return lower(a) == lower(b); })) {
    return false;
  }
  const std::string_view given = trimmed(authorization.substr(kBearer.size()));
  std::lock_guard lock(mutex_);
  bool any = false;
  for (const std::string& key : keys_) any |= same_key(given, key);
  return any;
}

}  // namespace geoalign::serve
