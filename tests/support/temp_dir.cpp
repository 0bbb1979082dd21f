#include "support/temp_dir.h"

#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace geoalign::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "geoalign-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path copy_fixture_model(const TempDir& dir, const std::filesystem::path& source) {
  const auto target = dir / "model";
  std::filesystem::copy(source, target, std::filesystem::copy_options::recursive);
  return target;
}

std::filesystem::path linked_model(const TempDir& dir, const std::filesystem::path& source) {
  const auto target = dir / "linked_model";
  std::filesystem::create_directory(target);
  for (const auto& entry : std::filesystem::directory_iterator(source)) {
    std::filesystem::create_symlink(std::filesystem::absolute(entry.path()), target / entry.path().filename());
  }
  return target;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

}  // namespace geoalign::testing
