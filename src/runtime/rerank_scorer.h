#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "geoalign/matcher.h"
#include "match/match_head.h"
#include "model/model_folder.h"
#include "text/normalize.h"

namespace geoalign::runtime {

// A model folder's rerank head (rerank_head.json) on its own: the folder's normalization,
// then the head's pair features and trees, and no encoder, whose weights are not even
// loaded. What search rerank and deduplication can afford on tens of millions of pairs;
// `score` and `eval` run it with --head rerank. Thread-safe.
class RerankScorer {
 public:
  // Throws Error naming the file when the folder has no rerank head or a malformed one.
  static RerankScorer load(const std::filesystem::path& model_dir);

  // Results in input order. Throws Error naming the first pair with invalid UTF-8.
  std::vector<MatchResult> score(std::span<const AddressPair> pairs) const;

 private:
  RerankScorer(std::vector<std::string> labels, text::AddressNormalizer normalizer,
               std::unique_ptr<const match::MatchHead> head);

  std::vector<std::string> labels_;
  model::LabelRoles roles_;
  text::AddressNormalizer normalizer_;
  std::unique_ptr<const match::MatchHead> head_;
};

}  // namespace geoalign::runtime
