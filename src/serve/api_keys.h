#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace geoalign::serve {

// The keys a client must present as "Authorization: Bearer KEY" (serve --api-key,
// --api-keys-file). Keys are never logged or put in an error message: a bad line of the
// file is named by its number.
class ApiKeys {
 public:
  // `given`: keys from the command line; `file`, when not empty: one key per line (blank
  // lines and lines starting with # skipped, surrounding blanks dropped). Throws Error
  // naming the file and line for a key that cannot be sent in a header (control
  // characters, blanks inside, over kMaxKeyBytes), and when no key is left at all.
  ApiKeys(std::vector<std::string> given, std::filesystem::path file);

  static constexpr std::size_t kMaxKeyBytes = 4096;

  // Whether `authorization` (an Authorization header's value) is "Bearer KEY" for one of
  // the keys. Every key is compared, each in time that depends on its length alone, so
  // the answer's timing does not say how much of a guess was right.
  bool admits(std::string_view authorization) const;
  // Reads the file again (SIGHUP); the command line's keys stay. On an error the keys in
  // use stay too, and the Error is thrown. Returns how many keys are in use.
  std::size_t reload();
  std::size_t size() const;
  bool reloads() const { return !file_.empty(); }

 private:
  static std::vector<std::string> read(const std::filesystem::path& file);

  mutable std::mutex mutex_;  // admits() on the I/O thread, reload() from a signal handler's turn or a test
  std::vector<std::string> given_;
  std::filesystem::path file_;
  std::vector<std::string> keys_;
};

}  // namespace geoalign::serve
