#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/matcher.h"
#include "model/model_folder.h"
#include "model/stage_timer.h"
#include "runtime/normalized_pair.h"

namespace geoalign::runtime {

// The one pipeline shared by the Matcher API, the CLI (score, features, profile) and the
// server: normalize -> tokenize -> compare (parse both addresses and compute the match
// head's pair features, when the model has a head) -> encoder -> head. Every stage after
// normalization sees the normalized text, so invisible characters cannot make the
// encoder, the head and the cache key judge different pairs. Encoding is thread-safe;
// running a batch needs a Workspace that no other thread uses at the same time.
class PairScorer {
 public:
  // `comparer` replaces the head's own (for `features`, which computes a head's inputs
  // before the head exists); by default it is the folder's match head's. The folder's
  // reading says how a head trained in canonical order reads a pair (Symmetric: the mean
  // over both values of its order input; Ordered: as given); a head without it, or a
  // folder without a head (an MGeo checkpoint), reads pairs as given either way.
  // `canonical_order` puts every pair in canonical order whether or not the head reads it
  // so (for `features`, which computes such a head's inputs); by default, as the head reads.
  explicit PairScorer(model::ModelFolder folder, std::shared_ptr<const match::PairComparer> comparer = nullptr,
                      std::optional<bool> canonical_order = std::nullopt);

  // The stages, one pair at a time. Throw Utf8Error on invalid UTF-8. normalize() puts the
  // pair in canonical order when the head reads it so (runtime/normalized_pair.h).
  NormalizedPair normalize(std::string_view a, std::string_view b) const;
  text::EncodedInput tokenize(const NormalizedPair& pair) const;
  // tokenize() when a decision reads the encoder (runs_encoder()), else the pair's flags
  // alone: a head on the pair features never reads the tokens, which were 7% of `score`'s
  // time on CCKS pairs.
  text::EncodedInput input_for(const NormalizedPair& pair) const;
  // Fills input.pair_features when there is a comparer; nothing to do otherwise.
  void compare(const NormalizedPair& pair, text::EncodedInput& input) const;
  bool compares() const { return comparer_ != nullptr; }

  // All stages for one pair.
  text::EncodedInput encode_pair(std::string_view a, std::string_view b) const;
  text::EncodedInput encode_address(std::string_view address) const;
  // Many at once, each stage over every core and timed into `timer` when given. An error
  // names the first bad one ("pair 12: ...", counting from `first_number`: a caller that
  // encodes a long list in chunks names the pair by its place in the list). An address
  // that several pairs share (a query against its candidates) is parsed once. The tokens
  // are there when a decision reads them (input_for) or when `with_tokens` says so (for
  // tools that run the encoder whatever the head reads: features).
  std::vector<text::EncodedInput> encode_pairs(std::span<const AddressPair> pairs, model::StageTimer* timer = nullptr,
                                               std::size_t first_number = 0, bool with_tokens = false) const;
  std::vector<text::EncodedInput> encode_addresses(std::span<const std::string> addresses) const;
  // A cache key: the normalized pair, which decides everything the model computes (with
  // the order it was given in, where the reading depends on it).
  std::string cache_key(const NormalizedPair& pair) const;

  // Throws if the model cannot classify pairs (no head, or labels it cannot interpret).
  void require_classifier() const;

  // Whether a decision needs the encoder: a folder without a head decides from the
  // encoder's probabilities alone, a head reads them when it was trained with them. A head
  // on the pair features alone (the bundled ones) decides without running the encoder.
  bool runs_encoder() const { return !folder_.head || folder_.head->uses_encoder(); }
  // How many encoder probabilities a decision reads per pair: labels() or 0.
  std::size_t encoder_width() const { return runs_encoder() ? labels().size() : 0; }

  // The encoder's class probabilities [n, labels], before any match head (run whether or
  // not the decision reads them: bench and features ask for them).
  void encoder_probabilities(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
                             Tensor& probabilities, model::StageTimer* timer = nullptr) const;
  // The decision from the encoder's probabilities [n, encoder_width()] (host memory, rows
  // in input order): the match head's trees over the inputs' pair features when the model has
  // them (in reading(), for a head trained in canonical order), then the label
  // (model::LabelRoles::decide: a pair of one text is exact_match with P = 1, the engine's
  // rule, not a front end's).
  // `reading` overrides the folder's for these pairs (search and dedup pass theirs).
  void decide(std::span<const text::EncodedInput* const> inputs, std::span<const float> encoder,
              std::vector<MatchResult>& results, model::StageTimer* timer = nullptr,
              std::optional<PairReading> reading = std::nullopt) const;
  // Final results: the encoder, then decide().
  // `encoder`, when given, receives the encoder's probabilities [n, encoder_width()] as well.
  void classify(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
                std::vector<MatchResult>& results, model::StageTimer* timer = nullptr,
                std::vector<float>* encoder = nullptr, std::optional<PairReading> reading = std::nullopt) const;
  // One vector per input, through `head` (by default the folder's own embedding head).
  void embed(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
             std::vector<std::vector<float>>& vectors, const model::EmbeddingHead* head = nullptr) const;

  const model::ModelFolder& folder() const { return folder_; }
  const std::vector<std::string>& labels() const { return folder_.config.bert.labels; }
  std::size_t max_length() const { return folder_.config.settings.max_length; }
  PairReading reading() const { return folder_.reading; }
  bool reads_canonical_order() const { return canonical_order_; }

 private:
  // compare() for many pairs, each distinct address parsed and read once.
  void compare_all(std::span<const NormalizedPair> pairs, std::span<text::EncodedInput> inputs) const;

  model::ModelFolder folder_;
  std::shared_ptr<const match::PairComparer> comparer_;
  bool canonical_order_;
};

}  // namespace geoalign::runtime
