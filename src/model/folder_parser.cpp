#include "model/folder_parser.h"

#include "geoalign/error.h"

namespace geoalign::model {

namespace {
std::mutex g_bundled_mutex;
std::filesystem::path g_bundled_dir = GEOALIGN_BUNDLED_PARSER_DIR;

bool is_parser_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec);
}
}  // namespace

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
    : model_dir_(model_dir), parser_(std::move(from_head)) {
  if (parser_) {
    std::error_code ec;
    if (!chosen.empty() && !std::filesystem::equivalent(chosen, parser_->folder(), ec)) {
      throw Error("--parser " + chosen.string() + ": " + model_dir.string() +
                  " has a match head, which reads addresses with its own parser (" + parser_->folder().string() +
                  "); --parser is for folders without one");
    }
    dir_ = parser_->folder();
    std::call_once(loaded_, [] {});
    return;
  }
  if (!chosen.empty()) {
    if (!is_parser_folder(chosen)) throw Error("--parser " + chosen.string() + ": no such folder");
    dir_ = chosen;
  } else if (is_parser_folder(model_dir / kFolderName)) {
    dir_ = model_dir / kFolderName;
  } else if (const auto bundled = bundled_parser_dir(); is_parser_folder(bundled)) {
    dir_ = bundled;
  }
}

bool FolderParser::available() const { return !dir_.empty(); }

const AddressParser& FolderParser::get() const {
  std::call_once(loaded_, [&] {
    if (dir_.empty()) {
      throw Error(model_dir_.string() + " has no parser of its own, and the bundled one (" +
                  bundled_parser_dir().string() + ") is not there: give one with --parser DIR");
    }
    parser_ = std::make_shared<const AddressParser>(AddressParser::load(dir_));
  });
  return *parser_;
}

}  // namespace geoalign::model
