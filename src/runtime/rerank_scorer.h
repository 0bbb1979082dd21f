#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "geoalign/matcher.h"
#include "geoalign/parser.h"
#include "match/match_head.h"
#include "model/model_folder.h"
#include "text/aliases.h"
#include "text/normalize.h"

namespace geoalign::runtime {

// A model folder's rerank head (rerank_head.json) on its own: the folder's normalization,
// then the head's pair features and trees, and no encoder, whose weights are not even
// loaded. What search rerank and deduplication can afford on tens of millions of pairs;
// `score` and `eval` run it with --head rerank. The one implementation of rerank scoring:
// text pairs (score, eval) and parsed ones (search, dedup) meet in results_of(). Thread-safe.
class RerankScorer {
 public:
  // Throws Error naming the file when the folder has no rerank head or a malformed one.
  // `aliases`: the names reconciled in a text pair (model::load_folder_aliases; null:
  // none), shared with the folder's other scorers rather than loaded again.
  static RerankScorer load(const std::filesystem::path& model_dir,
                           std::shared_ptr<const text::AliasTable> aliases = nullptr);

  // Pairs of raw text, normalized as the folder asks, over every core; each distinct
  // address parsed once. Results in input order. Throws Error naming the first pair that
  // fails (invalid UTF-8).
  std::vector<MatchResult> score(std::span<const AddressPair> pairs,
                                 PairReading reading = PairReading::Symmetric) const;
  // Pairs of addresses parsed already for comparison (match::parse_for_comparison of the
  // normalized text, as search's index and dedup hold them), on the calling thread; each
  // address read once, however many of the pairs it is in. Names are not reconciled here
  // (a parse has no text to rewrite): the caller reconciles the texts and parses again
  // the few pairs that change (engine::Engine::score).
  // same_text: the two addresses' whole normalized texts are one (a parse for comparison
  // may hold only a long text's prefix, so the parses cannot tell).
  struct ParsedPair {
    const ParsedAddress* a;
    const ParsedAddress* b;
    bool same_text;
  };
  std::vector<MatchResult> score(std::span<const ParsedPair> pairs, PairReading reading = PairReading::Symmetric) const;

  // The head's link threshold for a merge rule, when its trainer chose one.
  std::optional<float> link_threshold(std::string_view rule) const { return head_->link_threshold(rule); }

 private:
  RerankScorer(std::vector<std::string> labels, text::AddressNormalizer normalizer,
               std::shared_ptr<const text::AliasTable> aliases, std::unique_ptr<const match::MatchHead> head);
  // The trees over each pair's features, then the label (model::LabelRoles::decide, with
  // same_text[k]); with the features of the pairs swapped as well (same size), the
  // symmetric reading's label over both (LabelRoles::decide_both_orders).
  std::vector<MatchResult> results_of(const std::vector<std::vector<float>>& features,
                                      const std::vector<std::vector<float>>& swapped_features,
                                      const std::vector<char>& same_text) const;
  std::vector<float> probabilities_of(const std::vector<std::vector<float>>& features) const;

  std::vector<std::string> labels_;
  model::LabelRoles roles_;
  text::AddressNormalizer normalizer_;
  std::shared_ptr<const text::AliasTable> aliases_;
  std::unique_ptr<const match::MatchHead> head_;
};

}  // namespace geoalign::runtime
