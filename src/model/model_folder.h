#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <optional>

#include "geoalign/matcher.h"
#include "match/match_head.h"
#include "model/bert_encoder.h"
#include "model/config.h"
#include "model/embedding_head.h"
#include "model/folder_aliases.h"
#include "model/folder_parser.h"
#include "text/normalize.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::model {

// Which classifier outputs mean not_match, partial_match and exact_match.
struct LabelRoles {
  std::optional<std::size_t> not_match, partial_match, exact_match;

  // Names from id2label are recognized in English or Chinese (exact_match / 完全匹配 ...).
  // Unrecognized 3-label models are read in the CCKS order (not, partial, exact) and
  // 2-label models as (not, exact).
  static LabelRoles from_labels(const std::vector<std::string>& labels);

  // A pair's result from its probabilities over `labels`, in id order.
  MatchResult result(const std::vector<std::string>& labels, const float* probabilities) const;
  // The result that is certain of the exact_match role (probability 1), whatever the
  // folder names it: for a pair whose two normalized texts are one. Empty for a model
  // without that role.
  std::optional<MatchResult> certain_exact(const std::vector<std::string>& labels) const;
  // The decision for a pair: certain_exact() when its two normalized texts are one
  // (same_text) and the folder has the role, else result(). Every pair scorer decides here.
  MatchResult decide(const std::vector<std::string>& labels, const float* probabilities, bool same_text) const;
  // The symmetric reading's decision (PairReading::Symmetric): decide() over the mean of
  // a pair's probabilities read as (a, b) and as (b, a). The mean is taken as ab + ba,
  // which is ba + ab to the bit, so the pair gets the same numbers in either order.
  MatchResult decide_both_orders(const std::vector<std::string>& labels, const float* ab, const float* ba,
                                 bool same_text) const;
};

// Everything a Hugging Face BERT classifier folder holds, loaded and cross-checked.
struct ModelFolder {
  ModelConfig config;
  text::WordPieceTokenizer tokenizer;
  text::AddressNormalizer normalizer;
  BertModel model;
  LabelRoles roles;
  // How pairs are read (PairReading): the scorers read it here.
  PairReading reading = PairReading::Symmetric;
  // The feature-augmented head for `reading`, when the folder has one: match_head.json, or
  // for the ordered reading match_head_ordered.json where the folder has that.
  std::shared_ptr<const match::MatchHead> head;
  // How `embed` turns token states into vectors (modules.json, else mean pooling).
  EmbeddingHead embedding;
  // What reads whole addresses for search, dedup and /v1/parse: the head's parser, else
  // `parser_dir`, the folder's own or the bundled one (model/folder_parser.h).
  std::shared_ptr<const FolderParser> parser;
  // The names reconciled in a pair before anything reads it (model/folder_aliases.h);
  // null when the folder has no aliases.tsv and the user gave none.
  std::shared_ptr<const text::AliasTable> aliases;

  // The encoder and embedding head go to `device`; tokenizing, the match head and results
  // stay on the host. `parser_dir`: a parser for a folder without a head (--parser).
  // `aliases_file`: the user's names beside the folder's own (--aliases). `reading`: how
  // pairs are read, which picks the head.
  static ModelFolder load(const std::filesystem::path& dir, ops::MatmulPrecision precision = ops::MatmulPrecision::FP32,
                          Device device = Device::CPU, const std::filesystem::path& parser_dir = {},
                          const std::filesystem::path& aliases_file = {},
                          PairReading reading = PairReading::Symmetric);
};

}  // namespace geoalign::model
