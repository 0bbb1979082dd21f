#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "support/temp_dir.h"
#include "text/utf8.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::text {
namespace {

using testing::fixture_model;
using testing::read_file;
using testing::source_dir;

nlohmann::json golden() { return nlohmann::json::parse(read_file(source_dir() / "tests/golden/tokenizer_cases.json")); }

TokenizerOptions options_from(const nlohmann::json& o) {
  TokenizerOptions t;
  if (o.contains("do_lower_case")) t.do_lower_case = o["do_lower_case"];
  if (o.contains("strip_accents")) t.strip_accents = o["strip_accents"].get<bool>();
  if (o.contains("tokenize_chinese_chars")) t.tokenize_chinese_chars = o["tokenize_chinese_chars"];
  return t;
}

// Golden vectors come from tools/reference/bert_tokenizer.py (Python unicodedata), an
// implementation independent of this one (ICU).
TEST(WordPieceTokenizer, MatchesReferenceTokens) {
  const auto g = golden();
  ASSERT_GT(g["cases"].size(), 50u);
  for (const auto& c : g["cases"]) {
    const auto tok = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", options_from(c["options"]));
    const std::string text = c["text"];
    EXPECT_EQ(tok.tokenize(text), c["tokens"].get<std::vector<std::string>>())
        << "variant " << c["variant"] << " text " << text;
    EXPECT_EQ(tok.tokenize_to_ids(text), c["ids"].get<std::vector<std::int32_t>>());
  }
}

TEST(WordPieceTokenizer, EncodesPairsWithLongestFirstTruncation) {
  const auto tok = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", {});
  const auto g = golden();
  for (const auto& p : g["pairs"]) {
    const auto e = tok.encode_pair(p["a"].get<std::string>(), p["b"].get<std::string>(), p["max_length"]);
    EXPECT_EQ(e.input_ids, p["input_ids"].get<std::vector<std::int32_t>>()) << p["a"] << " | " << p["b"];
    EXPECT_EQ(e.token_type_ids, p["token_type_ids"].get<std::vector<std::int32_t>>());
    EXPECT_LE(e.input_ids.size(), p["max_length"].get<std::size_t>());
  }
}

TEST(WordPieceTokenizer, KeepsDigitsAndLatinLettersAsContinuations) {
  const auto tok = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", {});
  EXPECT_EQ(tok.tokenize("建国路455号"), (std::vector<std::string>{"建", "国", "路", "4", "##5", "##5", "号"}));
  EXPECT_EQ(tok.tokenize("A座"), (std::vector<std::string>{"a", "座"}));
}

// One-character words take a table; the table must say what the vocabulary says: the
// last line of a repeated token, [UNK] for a character it lacks, and the general path
// beyond the Basic Multilingual Plane and for words of several characters.
TEST(WordPieceTokenizer, OneCharacterWordsReadTheVocabulary) {
  const std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "路", "号", "路", "\xF0\x9F\x8F\xA0",
                                          "ab", "a", "##b", "\xFF"};
  const WordPieceTokenizer tok(vocab, {});
  EXPECT_EQ(tok.tokenize_to_ids("路"), std::vector<std::int32_t>{6});
  EXPECT_EQ(tok.tokenize_to_ids("号街"), (std::vector<std::int32_t>{5, 1}));
  EXPECT_EQ(tok.tokenize_to_ids("\xF0\x9F\x8F\xA0"), std::vector<std::int32_t>{7});
  EXPECT_EQ(tok.tokenize_to_ids("a ab b"), (std::vector<std::int32_t>{9, 8, 1}));
}

TEST(WordPieceTokenizer, RejectsInvalidUtf8) {
  const auto tok = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", {});
  EXPECT_THROW(tok.tokenize("北京\xE4\xB8"), Utf8Error);
  EXPECT_THROW(tok.encode_pair("ok", "\xFF", 128), Utf8Error);
}

TEST(WordPieceTokenizer, VocabularyWithoutSpecialTokensIsAnError) {
  testing::TempDir dir;
  testing::write_file(dir / "vocab.txt", "a\nb\n");
  try {
    WordPieceTokenizer::from_file(dir / "vocab.txt", {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[UNK]"), std::string::npos);
  }
}

// An extra newline at the end of vocab.txt adds no token (it would count against
// config.json's vocab_size); a blank line inside keeps its place, as in Hugging Face.
TEST(WordPieceTokenizer, BlankLinesAfterTheLastTokenAreNotTokens) {
  testing::TempDir dir;
  const std::string vocab = testing::read_file(fixture_model() / "vocab.txt");
  testing::write_file(dir / "vocab.txt", vocab + "\n\r\n");
  const auto plain = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", {});
  EXPECT_EQ(WordPieceTokenizer::from_file(dir / "vocab.txt", {}).vocab_size(), plain.vocab_size());
  testing::write_file(dir / "vocab.txt", "\n" + vocab);
  EXPECT_EQ(WordPieceTokenizer::from_file(dir / "vocab.txt", {}).vocab_size(), plain.vocab_size() + 1);
  // Lone CRs end lines, as Python's text mode reads them.
  std::string old_mac = vocab;
  std::replace(old_mac.begin(), old_mac.end(), '\n', '\r');
  testing::write_file(dir / "vocab.txt", old_mac);
  const auto cr = WordPieceTokenizer::from_file(dir / "vocab.txt", {});
  EXPECT_EQ(cr.vocab_size(), plain.vocab_size());
  EXPECT_EQ(cr.find("[SEP]"), plain.find("[SEP]"));
}

// Property: arbitrary valid text never crashes and always fits max_length.
TEST(WordPieceTokenizer, RandomTextAlwaysEncodesWithinMaxLength) {
  const auto tok = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", {});
  std::mt19937 rng(7);
  const char32_t pool[] = {U'北', U'京', U'路', U'8', U'a', U'Z', U' ', U'\t', U'(', U'，', U'ｂ', U'é',
                           U'\u0301', U'\u200b', U'Σ', U'😀', U'\u3000', U'[', U']', U'#', 0x1, 0xFFFD};
  for (int iter = 0; iter < 300; ++iter) {
    std::u32string a, b;
    const int la = static_cast<int>(rng() % 200), lb = static_cast<int>(rng() % 40);
    for (int i = 0; i < la; ++i) a.push_back(pool[rng() % std::size(pool)]);
    for (int i = 0; i < lb; ++i) b.push_back(pool[rng() % std::size(pool)]);
    const std::size_t max_length = 3 + rng() % 130;
    const auto e = tok.encode_pair(encode_utf8(a), encode_utf8(b), max_length);
    ASSERT_LE(e.input_ids.size(), max_length);
    ASSERT_EQ(e.input_ids.size(), e.token_type_ids.size());
    ASSERT_EQ(e.input_ids.front(), tok.cls_id());
    ASSERT_EQ(e.input_ids.back(), tok.sep_id());
  }
}

// Property: random bytes either decode or raise Utf8Error, never anything else.
// Where bytes stop being UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates,
// nothing past U+10FFFF), written from the RFC's table of well-formed byte sequences and
// apart from the tokenizer's decoder: the first offset that no well-formed sequence
// covers, or none.
std::optional<std::size_t> rfc3629_invalid_at(std::string_view s) {
  const auto in = [](unsigned char b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  for (std::size_t i = 0; i < s.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(i + k < s.size() ? s[i + k] : 0); };
    std::size_t n = 0;
    if (b(0) <= 0x7F) n = 1;
    else if (in(b(0), 0xC2, 0xDF) && in(b(1), 0x80, 0xBF)) n = 2;
    else if (b(0) == 0xE0 && in(b(1), 0xA0, 0xBF) && in(b(2), 0x80, 0xBF)) n = 3;
    else if ((in(b(0), 0xE1, 0xEC) || in(b(0), 0xEE, 0xEF)) && in(b(1), 0x80, 0xBF) && in(b(2), 0x80, 0xBF)) n = 3;
    else if (b(0) == 0xED && in(b(1), 0x80, 0x9F) && in(b(2), 0x80, 0xBF)) n = 3;
    else if (b(0) == 0xF0 && in(b(1), 0x90, 0xBF) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF)) n = 4;
    else if (in(b(0), 0xF1, 0xF3) && in(b(1), 0x80, 0xBF) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF)) n = 4;
    else if (b(0) == 0xF4 && in(b(1), 0x80, 0x8F) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF)) n = 4;
    if (n == 0 || i + n > s.size()) return i;
    i += n;
  }
  return std::nullopt;
}

// Random bytes, and random valid text over the whole code space: invalid input is refused
// with the offset the RFC gives, valid input always tokenizes into vocabulary entries.
TEST(WordPieceTokenizer, RandomBytesAreRefusedWhereTheRfcSaysAndValidTextTokenizes) {
  const auto tok = WordPieceTokenizer::from_file(fixture_model() / "vocab.txt", {});
  std::mt19937 rng(11);
  std::size_t invalid = 0, valid = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s;
    if (iter % 2 == 0) {
      s.assign(rng() % 64, '\0');
      for (char& c : s) c = static_cast<char>(rng());
    } else {
      for (std::size_t k = rng() % 24; k > 0; --k) {
        char32_t cp = static_cast<char32_t>(rng() % 0x110000);
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0x4E2D;  // a surrogate is no character: 中 instead
        append_utf8(s, cp);
      }
    }
    const std::optional<std::size_t> bad = rfc3629_invalid_at(s);
    try {
      const auto tokens = tok.tokenize(s);
      EXPECT_FALSE(bad.has_value()) << "accepted bytes invalid at " << *bad;
      for (const auto& t : tokens) EXPECT_TRUE(tok.find(t).has_value()) << "token \"" << t << "\" is not in the vocabulary";
      ++valid;
    } catch (const Utf8Error& e) {
      ASSERT_TRUE(bad.has_value()) << "refused valid UTF-8";
      EXPECT_EQ(e.byte_offset(), *bad);
      ++invalid;
    }
  }
  EXPECT_GT(invalid, 500u);  // both kinds of input were met
  EXPECT_GT(valid, 900u);
}

}  // namespace
}  // namespace geoalign::text
