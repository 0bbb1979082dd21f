#include "model/folder_parser.h"

#include "geoalign/error.h"

namespace geoalign::model {

namespace {
bool folder_exists(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec);
}

// The first bundled model's parser that exists, else the install prefix's (for the message
// of a parse that finds none).
std::filesystem::path default_bundled_dir() {
  const std::vector<std::filesystem::path> dirs = bundled_model_dirs();
  for (const auto& dir : dirs) {
    if (folder_exists(dir / "parser")) return dir / "parser";
  }
  return dirs.back() / "parser";
}

std::mutex g_bundled_mutex;
std::filesystem::path g_bundled_dir = default_bundled_dir();
}  // namespace

std::vector<std::filesystem::path> bundled_model_dirs() {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "geoalign" / "models" / "default");
  dirs.emplace_back(GEOALIGN_SOURCE_MODEL_DIR);
  dirs.emplace_back(GEOALIGN_INSTALLED_MODEL_DIR);
  return dirs;
}

void set_bundled_parser_dir(const std::filesystem::path& dir) {
  std::lock_guard lock(g_bundled_mutex);
  g_bundled_dir = dir;
}

std::filesystem::path bundled_parser_dir() {
  std::lock_guard lock(g_bundled_mutex);
  return g_bundled_dir;
}

FolderParser::FolderParser(const std::filesystem::path& model_dir, std::shared_ptr<const AddressParser> from_head,
                           const std::filesystem::path& chosen)
    : model_dir_(model_dir), head_parser_(std::move(from_head)) {
  if (head_parser_) {
    dir_ = head_parser_->folder();
    std::error_code ec;
    if (!chosen.empty() && !std::filesystem::equivalent(chosen, dir_, ec)) {
      throw Error("--parser " + chosen.string() + ": " + model_dir.string() +
                  " has a match head, which reads addresses with its own parser (" + dir_.string() +
                  "); --parser is for folders without one");
    }
  } else if (!chosen.empty()) {
    if (!folder_exists(chosen)) throw Error("--parser " + chosen.string() + ": no such folder");
    dir_ = chosen;
  } else if (folder_exists(model_dir / kFolderName)) {
    dir_ = model_dir / kFolderName;
  } else if (const auto bundled = bundled_parser_dir(); folder_exists(bundled)) {
    dir_ = bundled;
  }
}

bool FolderParser::available() const { return !dir_.empty(); }

const AddressParser& FolderParser::get() const {
  if (head_parser_) return *head_parser_;
  std::call_once(loaded_, [&] {
    if (dir_.empty()) {
      throw Error(model_dir_.string() + " has no parser of its own, and the bundled one (" +
                  bundled_parser_dir().string() + ") is not there: give one with --parser DIR");
    }
    loaded_parser_ = std::make_unique<const AddressParser>(AddressParser::load(dir_));
  });
  return *loaded_parser_;
}

}  // namespace geoalign::model
