#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "geoalign/parser.h"

namespace geoalign::model {

// The parser a model folder reads whole addresses with (search, dedup, /v1/parse), which
// belongs to the folder rather than to its match head: a Hugging Face or MGeo folder has no
// head, and the bundled parser serves it. Where it comes from, first that applies:
//   1. the match head's parser (the one its features were trained on); --parser is then
//      refused, as a second parser would read addresses differently from the head;
//   2. a parser folder given at load (--parser DIR);
//   3. the folder's own `parser/` (tagger.bin, divisions.tsv);
//   4. the bundled parser (models/default/parser).
// Scoring needs no parser, so 2-4 load on first use.
class FolderParser {
 public:
  static constexpr const char* kFolderName = "parser";

  // Throws Error when `chosen` is given beside a head's parser, or does not exist.
  FolderParser(const std::filesystem::path& model_dir, std::shared_ptr<const AddressParser> from_head,
               const std::filesystem::path& chosen);

  // Thread-safe. Throws Error naming where it looked when no parser is found, or what is
  // wrong with the one found.
  const AddressParser& get() const;
  // Whether get() finds a parser folder (without loading it).
  bool available() const;
  // Where get() loads from; empty when nowhere.
  const std::filesystem::path& folder() const { return dir_; }

 private:
  std::filesystem::path model_dir_, dir_;
  std::shared_ptr<const AddressParser> head_parser_;  // set at construction, or never
  mutable std::once_flag loaded_;
  mutable std::unique_ptr<const AddressParser> loaded_parser_;
};

// Where the bundled model may be outside a checkout, in order: beside the running binary
// (BIN/../share/geoalign/models/default: an install, wherever it was moved), the source
// tree this build was made from, and the install prefix it was built for. The command line
// looks for its default model there (after ./models/default), and the bundled parser is
// the parser/ of the first that has one.
std::vector<std::filesystem::path> bundled_model_dirs();

// Where the bundled parser is: set by a front end that ships it elsewhere (the Python
// package, inside itself), else the parser/ of bundled_model_dirs().
void set_bundled_parser_dir(const std::filesystem::path& dir);
std::filesystem::path bundled_parser_dir();

}  // namespace geoalign::model
