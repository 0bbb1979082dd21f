#include "text/wordpiece_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "common/open_file.h"
#include "geoalign/error.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::text {

namespace {

constexpr char32_t kCapitalSigma = 0x03A3;

bool starts_with_at(std::u32string_view text, std::size_t pos, std::u32string_view prefix) {
  return text.size() - pos >= prefix.size() && text.compare(pos, prefix.size(), prefix) == 0;
}

std::u32string strip_accents(std::u32string_view token) {
  std::u32string out = unicode::nfd(token);
  std::erase_if(out, unicode::is_nonspacing_mark);
  return out;
}

// Lowercases one run of ordinary text the way Python lowercases it one character at a
// time (PreTrainedTokenizer.tokenize does exactly that), so capital sigma never takes
// its final form.
void lower_each_char(std::u32string_view run, std::u32string& out) {
  if (run.find(kCapitalSigma) == std::u32string_view::npos) {
    out += unicode::to_lower(run);
    return;
  }
  for (char32_t c : run) out += unicode::to_lower(std::u32string_view(&c, 1));
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(std::vector<std::string> vocab, TokenizerOptions options)
    : tokens_(std::move(vocab)), options_(options) {
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    // As in Hugging Face's load_vocab, a repeated token keeps its last line's id.
    ids_.insert_or_assign(tokens_[i], static_cast<std::int32_t>(i));
  }
  for (const SpecialToken& t : kSpecialTokens) special_tokens_.push_back(decode_utf8(t.token));
  unk_id_ = require_special("[UNK]");
  cls_id_ = require_special("[CLS]");
  sep_id_ = require_special("[SEP]");
  single_character_ids_.assign(0x10000, unk_id_);
  for (const auto& [token, id] : ids_) {
    if (find_invalid_utf8(token)) continue;  // no text encodes to it
    const std::u32string cps = decode_utf8(token);
    if (cps.size() == 1 && cps[0] < 0x10000) single_character_ids_[cps[0]] = id;
  }
}

std::int32_t WordPieceTokenizer::require_special(std::string_view token) const {
  const auto id = find(token);
  if (!id) throw Error("vocabulary has no " + std::string(token) + " token");
  return *id;
}

WordPieceTokenizer WordPieceTokenizer::from_file(const std::filesystem::path& vocab_txt, TokenizerOptions options) {
  std::ifstream in = open_for_reading(vocab_txt, "vocabulary");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw Error("cannot read vocabulary " + vocab_txt.string());
  // Lines end as Python's text mode ends them (Hugging Face reads vocab.txt so): LF, CR LF
  // or a lone CR.
  std::vector<std::string> tokens;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find_first_of("\r\n", begin), text.size());
    std::string line = text.substr(begin, end - begin);
    if (const auto bad = find_invalid_utf8(line)) {
      throw Error(vocab_txt.string() + ":" + std::to_string(tokens.size() + 1) + ": invalid UTF-8 at byte " +
                  std::to_string(*bad));
    }
    tokens.push_back(std::move(line));
    begin = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  // Blank lines after the last token (an editor's extra newline): Hugging Face gives them
  // ids, but no text tokenizes to an empty token, so they only count against vocab_size.
  while (!tokens.empty() && tokens.back().empty()) tokens.pop_back();
  if (tokens.empty()) throw Error("vocabulary " + vocab_txt.string() + " is empty");
  try {
    return WordPieceTokenizer(std::move(tokens), options);
  } catch (const Error& e) {
    throw Error(vocab_txt.string() + ": " + e.what());
  }
}

std::optional<std::int32_t> WordPieceTokenizer::find(std::string_view token) const {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

void WordPieceTokenizer::basic_tokenize(std::u32string_view piece, std::vector<std::u32string>& out) const {
  std::u32string text;
  text.reserve(piece.size() * 3);
  for (char32_t c : piece) {
    if (c == 0 || c == 0xFFFD || unicode::is_control(c)) continue;
    if (unicode::is_whitespace(c)) {
      text.push_back(U' ');
    } else if (options_.tokenize_chinese_chars && unicode::is_cjk_ideograph(c)) {
      text.push_back(U' ');
      text.push_back(c);
      text.push_back(U' ');
    } else {
      text.push_back(c);
    }
  }
  text = unicode::nfc(text);

  const bool strip = options_.strip_accents.value_or(options_.do_lower_case);
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && unicode::is_python_space(text[i])) ++i;
    std::size_t end = i;
    while (end < text.size() && !unicode::is_python_space(text[end])) ++end;
    if (end == i) break;
    std::u32string token = text.substr(i, end - i);
    i = end;

    if (std::find(special_tokens_.begin(), special_tokens_.end(), token) != special_tokens_.end()) {
      out.push_back(std::move(token));
      continue;
    }
    if (options_.do_lower_case) token = unicode::to_lower(token);
    if (strip) token = strip_accents(token);

    std::u32string current;
    for (char32_t c : token) {
      if (unicode::is_punctuation(c)) {
        if (!current.empty()) out.push_back(std::move(current));
        current.clear();
        out.emplace_back(1, c);
      } else {
        current.push_back(c);
      }
    }
    if (!current.empty()) out.push_back(std::move(current));
  }
}

void WordPieceTokenizer::wordpiece(const std::u32string& word, std::vector<std::int32_t>& ids) const {
  if (word.size() > options_.max_input_chars_per_word) {
    ids.push_back(unk_id_);
    return;
  }
  if (word.size() == 1 && word[0] < 0x10000) {
    ids.push_back(single_character_ids_[word[0]]);
    return;
  }
  // Byte offset of each character, so candidate pieces are substrings of one UTF-8 buffer.
  const std::string utf8 = encode_utf8(word);
  std::vector<std::size_t> offset(word.size() + 1, 0);
  for (std::size_t k = 0, pos = 0; k < word.size(); ++k) {
    offset[k] = pos;
    const char32_t c = word[k];
    pos += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  offset[word.size()] = utf8.size();

  const std::size_t first_new = ids.size();
  std::string candidate;
  std::size_t start = 0;
  while (start < word.size()) {
    std::optional<std::int32_t> match;
    std::size_t end = word.size();
    for (; end > start; --end) {
      const std::string_view sub(utf8.data() + offset[start], offset[end] - offset[start]);
      if (start == 0) {
        match = find(sub);
      } else {
        candidate.assign("##");
        candidate.append(sub);
        match = find(candidate);
      }
      if (match) break;
    }
    if (!match) {
      ids.resize(first_new);
      ids.push_back(unk_id_);
      return;
    }
    ids.push_back(*match);
    start = end;
  }
}

std::vector<std::int32_t> WordPieceTokenizer::tokenize_to_ids(std::string_view utf8) const {
  const std::u32string raw = decode_utf8(utf8);

  // Special tokens written in the text stay tokens (Hugging Face's added-token split);
  // everything else is lowercased first if the model asks for it.
  std::vector<std::pair<std::u32string, bool>> pieces;  // (text, is_special)
  std::size_t run_start = 0;
  auto flush_run = [&](std::size_t end) {
    if (end == run_start) return;
    std::u32string_view run(raw.data() + run_start, end - run_start);
    std::u32string text;
    if (options_.do_lower_case) {
      lower_each_char(run, text);
    } else {
      text = run;
    }
    pieces.emplace_back(std::move(text), false);
  };
  for (std::size_t i = 0; i < raw.size();) {
    const auto special = std::find_if(special_tokens_.begin(), special_tokens_.end(),
                                      [&](const std::u32string& t) { return starts_with_at(raw, i, t); });
    if (special == special_tokens_.end()) {
      ++i;
      continue;
    }
    flush_run(i);
    pieces.emplace_back(*special, true);
    i += special->size();
    run_start = i;
  }
  flush_run(raw.size());

  std::vector<std::int32_t> ids;
  std::vector<std::u32string> words;
  for (const auto& [text, is_special] : pieces) {
    if (is_special) {
      ids.push_back(find(encode_utf8(text)).value_or(unk_id_));
      continue;
    }
    words.clear();
    basic_tokenize(text, words);
    for (const auto& w : words) wordpiece(w, ids);
  }
  return ids;
}

std::vector<std::string> WordPieceTokenizer::tokenize(std::string_view utf8) const {
  std::vector<std::string> out;
  for (std::int32_t id : tokenize_to_ids(utf8)) out.push_back(token(id));
  return out;
}

EncodedInput WordPieceTokenizer::encode_pair(std::string_view a, std::string_view b, std::size_t max_length) const {
  if (max_length < 3) throw Error("max_length must be at least 3 for a pair, got " + std::to_string(max_length));
  std::vector<std::int32_t> ids_a = tokenize_to_ids(a);
  std::vector<std::int32_t> ids_b = tokenize_to_ids(b);
  // Hugging Face's longest_first: drop one token at a time from the longer sequence,
  // from the second one on ties.
  while (ids_a.size() + ids_b.size() + 3 > max_length) {
    if (ids_a.size() > ids_b.size()) {
      ids_a.pop_back();
    } else {
      ids_b.pop_back();
    }
  }
  EncodedInput out;
  out.input_ids.reserve(ids_a.size() + ids_b.size() + 3);
  out.input_ids.push_back(cls_id_);
  out.input_ids.insert(out.input_ids.end(), ids_a.begin(), ids_a.end());
  out.input_ids.push_back(sep_id_);
  out.token_type_ids.assign(out.input_ids.size(), 0);
  out.input_ids.insert(out.input_ids.end(), ids_b.begin(), ids_b.end());
  out.input_ids.push_back(sep_id_);
  out.token_type_ids.resize(out.input_ids.size(), 1);
  return out;
}

EncodedInput WordPieceTokenizer::encode_single(std::string_view a, std::size_t max_length) const {
  if (max_length < 2) throw Error("max_length must be at least 2, got " + std::to_string(max_length));
  std::vector<std::int32_t> ids = tokenize_to_ids(a);
  if (ids.size() + 2 > max_length) ids.resize(max_length - 2);
  EncodedInput out;
  out.input_ids.reserve(ids.size() + 2);
  out.input_ids.push_back(cls_id_);
  out.input_ids.insert(out.input_ids.end(), ids.begin(), ids.end());
  out.input_ids.push_back(sep_id_);
  out.token_type_ids.assign(out.input_ids.size(), 0);
  return out;
}

}  // namespace geoalign::text
