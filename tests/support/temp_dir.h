#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace geoalign::testing {

// The checkout the tests were built from; GEOALIGN_SOURCE_DIR in the environment names
// another copy (tools/gpu/check.sh runs a binary built here in a copy elsewhere).
inline std::filesystem::path source_dir() {
  const char* moved = std::getenv("GEOALIGN_SOURCE_DIR");
  return moved != nullptr && *moved != '\0' ? moved : GEOALIGN_SOURCE_DIR;
}
inline std::filesystem::path fixture_model() { return source_dir() / "tests/fixtures/tiny_bert"; }
// A tiny random model in MGeo's layout (tools/reference/make_mgeo_fixture.py).
inline std::filesystem::path mgeo_fixture_model() { return source_dir() / "tests/fixtures/tiny_mgeo"; }

// A fresh directory removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A copy of a fixture model (by default tiny_bert) in a temp dir, for tests that damage or edit it.
std::filesystem::path copy_fixture_model(const TempDir& dir, const std::filesystem::path& source = fixture_model());

// A folder in `dir` whose entries link to those of `source` (by default the shipped model):
// a test replaces one file without copying the weights.
std::filesystem::path linked_model(const TempDir& dir, const std::filesystem::path& source = source_dir() / "models/default");

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& contents);

}  // namespace geoalign::testing
