#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/engine.h"
#include "index/lexical_index.h"
#include "index/region_records.h"
#include "index/stored_parses.h"
#include "index/string_column.h"
#include "index/vector_index.h"

namespace geoalign::index {

struct NewRecord {
  std::string id;    // empty: the record's number in the index
  std::string text;  // as given
};

// What a long step reports: its name, then how many of how many are done.
struct BuildProgress {
  std::function<void(const std::string& step, std::size_t total)> step;
  std::function<void(std::size_t done)> done;

  void begin(const std::string& name, std::size_t total) const {
    if (step) step(name, total);
  }
};

// A reference base of addresses on disk (a folder): each record's id, text, normalized
// text and adcode (records.bin), its parsed elements (parses.bin), a lexical index over
// its character grams (lexical.bin), and the model's embeddings in an HNSW graph
// (vectors.hnsw), tied together by manifest.json, which names the format version, the
// model the embeddings came from, the parser the elements came from, and every file's
// size and checksum. Opening checks all of them, so a truncated, foreign or half-written
// index is an Error naming the file. Version 1 folders (no parses.bin) still open; their
// records are parsed again when search reranks them.
class AddressIndex {
 public:
  static constexpr const char* kManifest = "manifest.json";
  // Records are numbered in 32 bits; the largest number marks none.
  static constexpr std::size_t kMaxRecords = 0xFFFFFFFEu;
  // Throws Error unless an index of `held` records can take `added` more.
  static void check_room(std::size_t held, std::size_t added);

  // An empty index for `model`'s embeddings.
  AddressIndex(const std::filesystem::path& model_dir, const engine::Engine& model, VectorIndex::Options graph = {});
  // Throws Error naming the file for anything missing, truncated or inconsistent.
  static AddressIndex open(const std::filesystem::path& dir);

  // Normalizes, parses, embeds and indexes the records (in order). Throws Error, adding
  // nothing, when an id is taken or a text normalizes to nothing.
  void add(const engine::Engine& model, const std::vector<NewRecord>& records, const BuildProgress& progress = {});
  // Writes every file under names of a new generation, then replaces the manifest by one
  // rename: a save that fails or is killed leaves the index as it was, and a search
  // opening meanwhile sees one save whole. Saves into one folder take turns (a lock file);
  // saving back to the folder this was opened from throws Error if another process saved
  // it since, rather than drop that process's records.
  void save(const std::filesystem::path& dir);

  std::size_t size() const { return ids_.size(); }
  std::string_view id(std::size_t r) const { return ids_[r]; }
  std::string_view text(std::size_t r) const { return texts_[r]; }
  std::string_view normalized(std::size_t r) const { return normalized_[r]; }
  // The code of record r's admin chain, what region filters read; for an ambiguous chain,
  // its most likely reading's (AdminChain::guess), and adcode_is_guess(r).
  std::string_view adcode(std::size_t r) const {
    const std::string_view code = adcodes_[r];
    return code.ends_with(kGuessMark) ? code.substr(0, code.size() - 1) : code;
  }
  bool adcode_is_guess(std::size_t r) const { return adcodes_[r].ends_with(kGuessMark); }
  // The records whose adcode starts with `region` (an adcode prefix); with `or_unknown`,
  // also those not known to lie outside it: a code that stops above the region's level,
  // or that is a guess. Found through per-code lists, without a scan; the set holds
  // references into the index, valid until the next add().
  RecordSet records_in(std::string_view region, bool or_unknown) const;
  // Stored after a guessed code in records.bin.
  static constexpr char kGuessMark = '?';
  // Record r parsed, from its stored elements when `model`'s parser found them, else
  // parsed now.
  engine::Address address(std::size_t r, const engine::Engine& model) const;
  bool has_parses() const { return has_parses_; }
  bool has_id(std::string_view id) const { return by_id_.count(std::string(id)) != 0; }

  const LexicalIndex& lexical() const { return lexical_; }
  const VectorIndex& vectors() const { return vectors_; }
  // The model folder the embeddings came from, as recorded at build time.
  const std::filesystem::path& model_dir() const { return model_dir_; }
  // Throws unless `model` computes the embeddings this index holds.
  void check_model(const std::filesystem::path& model_dir) const;

 private:
  AddressIndex(std::filesystem::path model_dir, std::uint64_t model_checksum, VectorIndex vectors);
  // open() of one manifest; throws if a save replaced it meanwhile.
  static AddressIndex open_whole(const std::filesystem::path& dir);
  std::uint64_t generation_ = 0;       // of the save this was opened from or last saved as
  std::filesystem::path opened_from_;  // that save's folder

  std::filesystem::path model_dir_;
  std::uint64_t model_checksum_ = 0;
  StringColumn ids_, texts_, normalized_, adcodes_;
  StoredParses parses_;
  bool has_parses_ = true;  // every record's elements are in parses_
  std::uint64_t parser_checksum_ = 0;
  std::unordered_map<std::string, std::uint32_t> by_id_;
  RegionRecords regions_;
  LexicalIndex lexical_;
  VectorIndex vectors_;
};

// Identifies a model folder's weights: an index built with one cannot be searched with another.
std::uint64_t model_checksum(const std::filesystem::path& model_dir);

}  // namespace geoalign::index
