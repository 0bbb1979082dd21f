#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/matcher.h"
#include "geoalign/parser.h"
#include "runtime/pair_scorer.h"
#include "runtime/rerank_scorer.h"

namespace geoalign::index {

// An address as search and dedup hold it: the model's normalized text and its parse.
struct Address {
  std::string text;
  ParsedAddress parsed;
};

// What search and dedup need from a model folder: its normalization, its embeddings, its
// parser, and a pair scorer for addresses parsed once. Pairs are scored by the folder's
// rerank head (rerank_head.json: the match head's trees over the parses alone) when it
// has one, at tens of thousands of pairs per second; otherwise by the cross-encoder and
// match head, as `score` does, a hundred times slower.
class AddressModel {
 public:
  // head: "rerank" (the rerank head when the folder has one, else the match head) or
  // "match" (the cross-encoder and match head, as `score` does).
  // parser_dir: a parser for a folder without a match head (--parser; model/folder_parser.h).
  // aliases_file: the user's names beside the folder's (--aliases; model/folder_aliases.h).
  static std::unique_ptr<AddressModel> load(const std::filesystem::path& model_dir, Precision precision = Precision::Auto,
                                            std::string_view head = "rerank",
                                            const std::filesystem::path& parser_dir = {},
                                            const std::filesystem::path& aliases_file = {});
  // Over a scorer already loaded from model_dir (the server's): its weights, on its
  // device, are shared rather than loaded again.
  static std::unique_ptr<AddressModel> over(std::shared_ptr<const runtime::PairScorer> scorer,
                                            const std::filesystem::path& model_dir, std::string_view head = "rerank");

  std::string normalize(std::string_view raw) const;
  // Throws Error if no parser is found (model/folder_parser.h).
  Address prepare(std::string_view normalized) const;
  // prepare() for many addresses over every core; with `only`, just those marked (the
  // others stay empty). `on_done` (may be empty) hears how many are done. Throws Error
  // naming the first address that fails.
  std::vector<Address> prepare_all(std::span<const std::string> normalized,
                                   const std::function<void(std::size_t)>& on_done = {},
                                   std::span<const char> only = {}) const;
  // Whether a parser is found for the folder (its head's, its own or the bundled one).
  bool can_parse() const;
  // Throws Error if no parser is found.
  const AddressParser& parser() const;
  // prepare() from the elements an earlier prepare() of this text found (an index stores
  // them): the tagger, most of a parse's cost, does not run again.
  Address complete(std::string_view normalized, std::vector<AddressElement> elements) const;
  // Identifies the parser's files (0 without a parser): stored elements are reused only
  // with the parser that found them.
  std::uint64_t parser_checksum() const { return parser_checksum_; }

  // Unit vectors for normalized addresses, n * dim() floats in input order; `on_done` (may
  // be empty) hears how many are done.
  std::vector<float> embed(std::span<const std::string_view> normalized,
                           const std::function<void(std::size_t)>& on_done = {}) const;
  std::size_t dim() const { return dim_; }

  // Thread-safe. Throws Error if the folder cannot classify pairs.
  std::vector<MatchResult> score(std::span<const std::pair<const Address*, const Address*>> pairs,
                                 PairReading reading = PairReading::Symmetric) const;
  bool fast_pairs() const { return rerank_ != nullptr; }
  const std::vector<std::string>& labels() const { return scorer_.labels(); }
  // The cross-encoder and heads this model scores, embeds and parses with.
  const runtime::PairScorer& scorer() const { return scorer_; }
  std::string scorer_name() const { return rerank_ ? "rerank head" : "cross-encoder"; }
  // The scoring head's link threshold for a merge rule, when its trainer chose one.
  std::optional<float> link_threshold(std::string_view rule) const;

 private:
  AddressModel(std::shared_ptr<const runtime::PairScorer> scorer, const std::filesystem::path& dir, bool use_rerank);
  std::shared_ptr<const runtime::PairScorer> scorer_holder_;
  const runtime::PairScorer& scorer_;
  std::unique_ptr<const runtime::RerankScorer> rerank_;
  std::uint64_t parser_checksum_ = 0;
  std::size_t dim_ = 0;
  mutable std::mutex mutex_;  // guards the workspace
  mutable model::BertModel::Workspace workspace_;
};

}  // namespace geoalign::index
