#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "match/gbdt.h"
#include "match/pair_comparer.h"

namespace geoalign::match {

// A feature-augmented head: its comparer parses both addresses and compares them element
// by element (match/pair_features.h), and boosted trees turn those comparisons into the
// final probabilities. The match head (match_head.json) also feeds the trees the encoder's
// class probabilities; the rerank head (rerank_head.json) does without them, so it can
// score the tens of millions of pairs of a search rerank or a deduplication, far more
// than the cross-encoder can. The file names the parser folder and the term weights file
// the head was trained with.
class MatchHead {
 public:
  static constexpr const char* kFileName = "match_head.json";
  static constexpr const char* kRerankFileName = "rerank_head.json";
  // A second match head for the ordered reading (PairReading::Ordered), when a folder has
  // one: trained on pairs as given, it reads the query -> reference shape better than the
  // match head that gives both orders one answer.
  static constexpr const char* kOrderedFileName = "match_head_ordered.json";

  // Throws Error naming the file for anything malformed or inconsistent with this build.
  static std::unique_ptr<MatchHead> load(const std::filesystem::path& model_dir, std::size_t num_labels,
                                         const char* file_name = kFileName);

  // The parser and term weights named in the file, which turn a pair into the features
  // the trees were trained on.
  const PairComparer& comparer() const { return comparer_; }
  // Whether the trees read the encoder's probabilities after the pair features.
  bool uses_encoder() const { return uses_encoder_; }
  // Whether the head was trained on pairs in canonical order (runtime::in_canonical_order,
  // "order": "canonical" in the file), with one more input last, order_swapped: 1 when
  // the pair was given the other way round. Such a head gives both orders of a pair one
  // set of features; its symmetric reading is the mean over order_swapped 0 and 1, and
  // its ordered reading sets it as given. A head without it reads pairs as given.
  bool reads_canonical_order() const { return canonical_order_; }
  // For n pairs: their pair features, the encoder's probabilities [n, labels] (empty when
  // !uses_encoder()) and the head's [n, labels]; `order_swapped` is every pair's value of
  // that input when reads_canonical_order() (ignored otherwise).
  void probabilities(std::span<const std::span<const float>> pair_features, std::span<const float> encoder_probabilities,
                     std::span<float> out, bool order_swapped = false) const;
  // For one pair: what its verdict rests on. Row i of the [inputs, labels] answer holds
  // the probabilities the trees give with every test on input i reversed
  // (GradientBoostedTrees::probabilities_with_tests_reversed); the inputs are
  // input_names()'s.
  std::vector<float> probabilities_with_tests_reversed(std::span<const float> pair_features,
                                                       std::span<const float> encoder_probabilities,
                                                       bool order_swapped = false) const;
  // What the trees read, as the file names it: the pair features, then encoder_p0,
  // encoder_p1, ... when uses_encoder(), then order_swapped when reads_canonical_order().
  const std::vector<std::string>& input_names() const { return input_names_; }
  // The link at which dedup should merge under a merge rule ("exact", "partial"), when the
  // trainer chose one out of fold ("link_thresholds" in the file).
  std::optional<float> link_threshold(std::string_view rule) const;

 private:
  MatchHead(PairComparer comparer, GradientBoostedTrees trees, std::vector<std::string> input_names, bool uses_encoder,
            bool canonical_order, std::map<std::string, float, std::less<>> link_thresholds)
      : comparer_(std::move(comparer)),
        trees_(std::move(trees)),
        input_names_(std::move(input_names)),
        uses_encoder_(uses_encoder),
        canonical_order_(canonical_order),
        link_thresholds_(std::move(link_thresholds)) {}
  // The encoder's columns per pair: its labels when the trees read them, else none.
  // Throws unless `encoder_probabilities` holds that many for each of n pairs.
  std::size_t encoder_width(std::size_t n, std::span<const float> encoder_probabilities) const;
  // Appends pair `k`'s tree inputs to `rows`: its features, then its encoder row, then
  // order_swapped when the head reads it.
  void append_inputs(std::size_t k, std::span<const float> pair_features, std::span<const float> encoder_row,
                     bool order_swapped, std::vector<float>& rows) const;

  PairComparer comparer_;
  GradientBoostedTrees trees_;
  std::vector<std::string> input_names_;
  bool uses_encoder_;
  bool canonical_order_;
  std::map<std::string, float, std::less<>> link_thresholds_;
};

}  // namespace geoalign::match
