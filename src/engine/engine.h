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

namespace geoalign::engine {

// An address as search, dedup and link hold it: the model's normalized text and its parse.
struct Address {
  std::string text;
  ParsedAddress parsed;
};

// Which of a folder's heads decides a pair. Match: the cross-encoder, then the folder's
// match head when it has one (what `score` runs by default and the server's /v1/match).
// Rerank: the rerank head alone (rerank_head.json: the trees over the parses, no encoder),
// tens of thousands of pairs a second, what search and dedup run by default; a folder
// without one decides with the match head.
enum class Head { Match, Rerank };
// "match" or "rerank"; anything else is an Error that lists them.
Head parse_head(std::string_view name);
const char* head_name(Head head);
// For a front end that scores with the rerank head by name (`score --head rerank`,
// Matcher's head "rerank"): the file must be there, where search and dedup fall back to
// the match head. Throws Error naming it.
void require_rerank_head(const std::filesystem::path& model_dir);

struct EngineOptions {
  Precision precision = Precision::Auto;
  // Where the encoder runs: "cpu" or "cuda[:N]" (geoalign/matcher.h).
  std::string device = "cpu";
  // A parser for a folder without one of its own or a match head (--parser DIR;
  // model/folder_parser.h); empty: the bundled one.
  std::filesystem::path parser_dir{};
  // The user's names beside the folder's aliases.tsv (--aliases; model/folder_aliases.h).
  std::filesystem::path aliases{};
  // How pairs are read unless a call says otherwise; picks the match head's file.
  PairReading reading = PairReading::Symmetric;
  // The head that decides pairs (see Head).
  Head head = Head::Match;
  // CPU threads for the whole process, as MatcherOptions::threads (0: as it has them).
  int threads = 0;
};

// The one engine behind every front end: it owns a model folder (tokenizer, encoder,
// embedding head), its parser, its aliases and its heads, and makes every decision about a
// pair. `score` and `eval`, the server (whose batcher runs scorer()), search, dedup, link,
// the C++ Matcher, Index and Deduplicator and the Python package are front ends over it:
// they translate a request into these calls and never build features, run trees or pick a
// label themselves. Thread-safe.
class Engine {
 public:
  // Throws Error naming the file for a missing or damaged folder, and for an unknown device.
  static std::unique_ptr<Engine> load(const std::filesystem::path& model_dir, const EngineOptions& options = {});

  // --- Text ---
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

  // --- Embeddings ---
  // Unit vectors for normalized addresses through the folder's embedding head, n * dim()
  // floats in input order, in chunks that bound the tokens held; `on_done` (may be empty)
  // hears how many are done.
  std::vector<float> embed(std::span<const std::string_view> normalized,
                           const std::function<void(std::size_t)>& on_done = {}) const;
  // One vector per raw address, pooled as asked, in batches of at most batch_size.
  std::vector<std::vector<float>> embed(std::span<const std::string> addresses, Pooling pooling,
                                        std::size_t batch_size) const;
  std::size_t dim() const { return dim_; }

  // --- Decisions ---
  // Pairs of raw text by head(), read as reading() says, results in input order. The
  // match head's encoder runs in batches of at most batch_size, grouped by length within
  // each chunk that `geoalign score` reads (runtime/score_chunks.h), so every front end
  // gets the same numbers to the bit. Throws Error naming the pair (from 0) on invalid
  // UTF-8, for a batch_size of 0, and when the folder cannot classify pairs.
  std::vector<MatchResult> score(std::span<const AddressPair> pairs, std::size_t batch_size = kDefaultBatchSize) const;
  // Pairs of prepared addresses (search's candidates, dedup's blocks) by head(), in
  // `reading`. A pair whose names the aliases reconcile is parsed again from its rewritten
  // texts; the rest keep their parses.
  std::vector<MatchResult> score(std::span<const std::pair<const Address*, const Address*>> pairs,
                                 PairReading reading = PairReading::Symmetric) const;
  // The head that decides pairs: options' head, or Match when the folder has no rerank head.
  Head head() const { return rerank_ ? Head::Rerank : Head::Match; }
  // Whether pairs are decided without the encoder (the rerank head): cheap enough to score
  // every candidate pair of a block.
  bool fast_pairs() const { return rerank_ != nullptr; }
  std::string scorer_name() const { return rerank_ ? "rerank head" : "cross-encoder"; }
  // The deciding head's link threshold for a merge rule, when its trainer chose one.
  std::optional<float> link_threshold(std::string_view rule) const;

  const std::vector<std::string>& labels() const { return scorer_->labels(); }
  std::size_t max_length() const { return scorer_->max_length(); }
  PairReading reading() const { return scorer_->reading(); }
  Precision precision() const { return precision_; }
  // The encoder, match head and tokenizer, for the server's batcher and the stage tools
  // (bench, profile) that time them one by one.
  const runtime::PairScorer& scorer() const { return *scorer_; }

 private:
  Engine(std::shared_ptr<const runtime::PairScorer> scorer, const std::filesystem::path& dir, Head head,
         Precision precision);
  std::vector<MatchResult> score_with_encoder(std::span<const AddressPair> pairs, std::size_t batch_size) const;
  std::vector<MatchResult> score_parsed_with_encoder(std::span<const std::pair<const Address*, const Address*>> pairs,
                                                     PairReading reading) const;

  std::shared_ptr<const runtime::PairScorer> scorer_;
  std::unique_ptr<const runtime::RerankScorer> rerank_;
  Precision precision_;
  std::uint64_t parser_checksum_ = 0;
  std::size_t dim_ = 0;
  mutable std::mutex mutex_;  // guards the workspace
  mutable model::BertModel::Workspace workspace_;
};

}  // namespace geoalign::engine
