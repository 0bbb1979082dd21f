#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/error.h"

namespace geoalign {

enum class Precision { FP32, BF16, INT8, Auto };
Precision parse_precision(std::string_view name);  // "fp32", "bf16", "int8", "auto"
const char* precision_name(Precision p);

// Pairs (or addresses) per model batch unless told otherwise, here and in `geoalign score`.
inline constexpr std::size_t kDefaultBatchSize = 64;

// How a pair is read. Symmetric (the default everywhere): the label and the probabilities
// of a pair do not depend on which address comes first (exactly: the same numbers either
// way). The rerank head (search's rerank, dedup, `score --head rerank`) takes the mean of
// its probabilities for (a, b) and (b, a); the bundled match head reads the pair in one
// canonical order and takes the mean over its input that says which address came first
// (match/match_head.h). Ordered: the pair as given, for data shaped query -> reference
// (CCKS: a user's query, then a map record), which the heads read a little better. A
// folder without a head of its own (an MGeo checkpoint) reads pairs as given either way.
enum class PairReading { Symmetric, Ordered };

struct MatcherOptions {
  Precision precision = Precision::Auto;
  // CPU threads, 0 to 1024; holds for the whole process, whichever thread scores. 0: as
  // the process has them (one per core, unless a count was set before).
  int threads = 0;
  // Where the encoder runs: "cpu", or "cuda" ("cuda:0") for the first GPU, in a build with the
  // CUDA backend. A GPU that cannot be used is an Error, never a quiet fall-back to the CPU.
  std::string device = "cpu";
  // The user's own names for places, "short<TAB>full" per line (西湖银泰<TAB>西湖银泰城购物中心),
  // beside the model folder's aliases.tsv: in a pair, a name one address gives in full and
  // the other in short is read as one name. Empty: the folder's alone.
  std::filesystem::path aliases{};
  // How score() reads a pair (see PairReading).
  PairReading reading = PairReading::Symmetric;
  // The head that decides score()'s pairs: "match" (the encoder, then the folder's match
  // head when it has one) or "rerank" (the folder's rerank head alone, rerank_head.json:
  // the parses and trees, no encoder, as search and dedup decide; an Error when the folder
  // has none). Anything else is an Error.
  std::string head = "match";
};

struct AddressPair {
  std::string a, b;
};

struct MatchResult {
  std::size_t label_id = 0;
  std::string label;  // from the model's id2label
  // The expected degree of match, P(exact) + 0.5 * P(partial), in [0, 1]: 1 when the
  // model is sure the addresses name the same place at the same granularity, 0.5 for a
  // sure partial match, 0 for a sure non-match.
  float score = 0;
  float p_not_match = 0, p_partial_match = 0, p_exact_match = 0;
  std::vector<float> probabilities;  // one per label, in id order
};

// Model: the folder's embedding head (sentence-transformers modules.json: pooling, dense
// layers, normalization; mean pooling alone when the folder has none). Cls and Mean: the
// encoder's raw [CLS] state or mean token state, without the head.
enum class Pooling { Model, Cls, Mean };

// Scores Chinese address pairs with a BERT cross-encoder loaded from a Hugging Face
// folder (config.json, vocab.txt, model.safetensors). Thread-safe.
class Matcher {
 public:
  static Matcher load(const std::filesystem::path& model_dir, const MatcherOptions& options = {});
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // Scores pairs in batches of at most batch_size, grouping pairs of similar length within
  // each run of 32 batches' worth of pairs (as `geoalign score` reads a file, so the numbers
  // equal its to the bit), and returns results in input order. Throws Error naming the pair
  // (from 0) on invalid UTF-8, and for a batch_size of 0.
  std::vector<MatchResult> score(std::span<const AddressPair> pairs, std::size_t batch_size = kDefaultBatchSize) const;

  // One vector per address, from the shared encoder.
  std::vector<std::vector<float>> embed(std::span<const std::string> addresses, Pooling pooling = Pooling::Model,
                                        std::size_t batch_size = kDefaultBatchSize) const;

  const std::vector<std::string>& labels() const;
  std::size_t max_length() const;
  Precision precision() const;

 private:
  struct Impl;
  explicit Matcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace geoalign
