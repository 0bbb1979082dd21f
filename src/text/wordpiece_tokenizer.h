#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace geoalign::text {

// Settings with the meaning of Hugging Face's BertTokenizer arguments.
struct TokenizerOptions {
  bool do_lower_case = true;
  std::optional<bool> strip_accents;  // unset: strip when lowercasing, as BERT does
  bool tokenize_chinese_chars = true;
  std::size_t max_input_chars_per_word = 100;
};

// BertTokenizer's special tokens, each with the tokenizer_config.json key that names it.
// geoalign tokenizes with these; a folder naming others is refused (model/config.cpp).
struct SpecialToken {
  std::string_view config_key, token;
};
inline constexpr SpecialToken kSpecialTokens[] = {
    {"unk_token", "[UNK]"}, {"sep_token", "[SEP]"}, {"pad_token", "[PAD]"}, {"cls_token", "[CLS]"}, {"mask_token", "[MASK]"}};

struct EncodedInput {
  std::vector<std::int32_t> input_ids;
  std::vector<std::int32_t> token_type_ids;
  // A pair's match-head features (see match/match_head.h), computed beside tokenization
  // so that they travel through the batcher with the tokens; empty without a head.
  std::vector<float> pair_features;
  // A pair whose two texts are equal once normalized: one place, whatever the model makes of
  // a terse address against itself (runtime::PairScorer::decide).
  bool same_text = false;
  // A pair read in canonical order (runtime::in_canonical_order) that was given the other
  // way round: what a match head trained in that order reads beside the pair features.
  bool order_swapped = false;
};

// A reimplementation of BertTokenizer (the "slow" Python one): special-token splitting,
// cleaning, CJK splitting, NFC, lowercasing and accent stripping, punctuation splitting,
// then greedy longest-match-first WordPiece.
class WordPieceTokenizer {
 public:
  WordPieceTokenizer(std::vector<std::string> vocab, TokenizerOptions options);
  // Reads vocab.txt: one token per line, id = line number from 0.
  static WordPieceTokenizer from_file(const std::filesystem::path& vocab_txt, TokenizerOptions options);

  // Tokens of one text, without [CLS]/[SEP]. Throws Utf8Error on invalid UTF-8.
  std::vector<std::string> tokenize(std::string_view utf8) const;
  std::vector<std::int32_t> tokenize_to_ids(std::string_view utf8) const;

  // [CLS] a [SEP] b [SEP], truncated "longest_first" to max_length tokens.
  EncodedInput encode_pair(std::string_view a, std::string_view b, std::size_t max_length) const;
  // [CLS] a [SEP], truncated to max_length tokens.
  EncodedInput encode_single(std::string_view a, std::size_t max_length) const;

  std::size_t vocab_size() const { return tokens_.size(); }
  const std::string& token(std::int32_t id) const { return tokens_.at(static_cast<std::size_t>(id)); }
  std::optional<std::int32_t> find(std::string_view token) const;
  std::int32_t cls_id() const { return cls_id_; }
  std::int32_t sep_id() const { return sep_id_; }
  std::int32_t unk_id() const { return unk_id_; }

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using TokenIds = std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>>;

  std::int32_t require_special(std::string_view token) const;
  void basic_tokenize(std::u32string_view piece, std::vector<std::u32string>& out) const;
  void wordpiece(const std::u32string& word, std::vector<std::int32_t>& ids) const;

  std::vector<std::string> tokens_;
  TokenIds ids_;
  // The id of each one-character word in the Basic Multilingual Plane (unk where the
  // vocabulary lacks it): Chinese text is split into one word per character, and this
  // answers each without encoding and hashing a string.
  std::vector<std::int32_t> single_character_ids_;
  TokenizerOptions options_;
  std::vector<std::u32string> special_tokens_;
  std::int32_t cls_id_, sep_id_, unk_id_;
};

}  // namespace geoalign::text
