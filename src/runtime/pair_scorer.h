#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/matcher.h"
#include "model/model_folder.h"

namespace geoalign::runtime {

// The core shared by the Matcher API, the CLI and the server: text to tokens, and
// tokens to results one batch at a time. Encoding is thread-safe; running a batch needs
// a Workspace that no other thread uses at the same time.
class PairScorer {
 public:
  explicit PairScorer(model::ModelFolder folder);

  // Normalizes (if the model asks) and tokenizes. Throws Utf8Error on invalid UTF-8.
  text::EncodedInput encode_pair(std::string_view a, std::string_view b) const;
  // encode_pair without the match head's pair features: normalization and tokens only.
  text::EncodedInput tokenize_pair(std::string_view a, std::string_view b) const;
  text::EncodedInput encode_address(std::string_view address) const;
  // Many at once, over every core. An error names the first bad one ("pair 12: ...").
  std::vector<text::EncodedInput> encode_pairs(std::span<const AddressPair> pairs) const;
  std::vector<text::EncodedInput> encode_addresses(std::span<const std::string> addresses) const;
  // The pair as the model sees it after normalization: a cache key.
  std::string normalized_pair_key(std::string_view a, std::string_view b) const;

  // Throws if the model cannot classify pairs (no head, or labels it cannot interpret).
  void require_classifier() const;

  void classify(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
                std::vector<MatchResult>& results) const;
  // One vector per input, through `head` (by default the folder's own embedding head).
  void embed(std::span<const text::EncodedInput* const> inputs, model::BertModel::Workspace& ws,
             std::vector<std::vector<float>>& vectors, const model::EmbeddingHead* head = nullptr) const;

  const model::ModelFolder& folder() const { return folder_; }
  const std::vector<std::string>& labels() const { return folder_.config.bert.labels; }
  std::size_t max_length() const { return folder_.config.settings.max_length; }

 private:
  MatchResult to_result(const float* probabilities) const;

  model::ModelFolder folder_;
};

}  // namespace geoalign::runtime
