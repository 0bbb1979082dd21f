#include "text/normalize.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "geoalign/error.h"
#include "text/annotations.h"
#include "text/floor_folding.h"
#include "text/markup.h"
#include "text/unicode.h"
#include "text/utf8.h"
#include "text/variant_folding.h"

#ifdef GEOALIGN_HAVE_OPENCC
#include <opencc/opencc.h>
#endif

namespace geoalign::text {

namespace {
bool splits_off(char32_t c) { return unicode::is_cjk_ideograph(c) || unicode::is_punctuation(c); }

bool is_separator(char32_t c) { return c == U'/' || c == U'|' || c == U'\\'; }

// A slash, bar or backslash beside an ideograph separates two parts of an address (a
// form's province / city / district fields joined): the features would count it as text
// one side has and the other lacks. Made a blank, which blank cleaning then drops. Between
// letters, digits or other marks (2/3楼, A/B座, C:\data) it is part of the text and stays.
// Its neighbours are read past blanks and other separators, so that what cleaning brings
// together (A/ 北京, A//北京) is decided now, and normalizing again changes nothing.
void separators_to_blanks(std::u32string& text) {
  if (std::none_of(text.begin(), text.end(), is_separator)) return;  // most addresses: no work, no allocation
  const auto skipped = [](char32_t c) { return is_separator(c) || unicode::is_python_space(c) || unicode::is_whitespace(c); };
  // ideograph_after[i]: the first character from i on that is not skipped is an ideograph
  // (one pass each way: a field of a million slashes stays linear).
  std::vector<char> ideograph_after(text.size() + 1, 0);
  for (std::size_t i = text.size(); i-- > 0;) {
    ideograph_after[i] = skipped(text[i]) ? ideograph_after[i + 1] : unicode::is_cjk_ideograph(text[i]);
  }
  bool ideograph_before = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!skipped(text[i])) ideograph_before = unicode::is_cjk_ideograph(text[i]);
    if (is_separator(text[i]) && (ideograph_before || ideograph_after[i + 1])) text[i] = U' ';
  }
}
}  // namespace

#ifdef GEOALIGN_HAVE_OPENCC
class AddressNormalizer::OpenCC {
 public:
  OpenCC() : handle_(opencc_open(OPENCC_DEFAULT_CONFIG_TRAD_TO_SIMP)) {
    if (handle_ == reinterpret_cast<opencc_t>(-1)) {
      throw Error(std::string("cannot load OpenCC's t2s conversion: ") + opencc_error());
    }
  }
  ~OpenCC() { opencc_close(handle_); }
  OpenCC(const OpenCC&) = delete;
  OpenCC& operator=(const OpenCC&) = delete;

  std::string convert(const std::string& s) const {
    // OpenCC documents no thread-safety guarantee for a shared converter.
    std::lock_guard lock(mutex_);
    char* out = opencc_convert_utf8(handle_, s.data(), s.size());
    if (out == nullptr) throw Error(std::string("OpenCC conversion failed: ") + opencc_error());
    std::string result(out);
    opencc_convert_utf8_free(out);
    return result;
  }

 private:
  opencc_t handle_;
  mutable std::mutex mutex_;
};
#else
class AddressNormalizer::OpenCC {
 public:
  OpenCC() {
    throw Error("traditional_to_simplified normalization needs OpenCC, and this build has none "
                "(install libopencc-dev and rebuild)");
  }
  std::string convert(const std::string& s) const { return s; }
};
#endif

AddressNormalizer::AddressNormalizer(NormalizeOptions options) : options_(options) {
  if (options_.traditional_to_simplified) opencc_ = std::make_unique<OpenCC>();
}
AddressNormalizer::~AddressNormalizer() = default;
AddressNormalizer::AddressNormalizer(AddressNormalizer&&) noexcept = default;
AddressNormalizer& AddressNormalizer::operator=(AddressNormalizer&&) noexcept = default;

namespace {

void normalize_once(std::u32string& text, const NormalizeOptions& options) {
  // One spelling per meaning starts with Unicode's: Cafe and U+0301 is Café. The tokenizer
  // composes anyway; the parser, the match head and the stored texts must see the same.
  text = unicode::nfc(text);
  if (options.fullwidth_to_halfwidth) {
    for (char32_t& c : text) {
      if (c >= 0xFF01 && c <= 0xFF5E) {
        c -= 0xFEE0;
      } else if (c == 0x3000) {
        c = U' ';
      }
    }
  }
  // After width folding, which makes ＆ an &; before variant folding, which reads what
  // &middot; stands for.
  if (options.decode_markup) decode_markup(text);
  if (options.fold_variants) fold_variant_characters(text);
  // Before blank cleaning: the blanks between a name, a phone number and the address are
  // what tell them apart.
  if (options.drop_annotations) drop_annotations(text);
  if (options.clean_whitespace) {
    separators_to_blanks(text);
    std::u32string cleaned;
    cleaned.reserve(text.size());
    bool pending_space = false;
    for (char32_t c : text) {
      if (unicode::is_python_space(c) || unicode::is_whitespace(c)) {
        pending_space = !cleaned.empty();
      } else if (!unicode::is_control(c)) {
        // BERT's basic tokenizer cuts ideographs and punctuation out as tokens of their own,
        // so a blank beside one never reaches the encoder; dropping it here lets the parser,
        // the match head and the cache key see what the encoder sees. Between two letters or
        // digits a blank can carry meaning (1 2号 is not 12号) and stays.
        if (pending_space && !splits_off(cleaned.back()) && !splits_off(c)) cleaned.push_back(U' ');
        pending_space = false;
        cleaned.push_back(c);
      }
    }
    text = std::move(cleaned);
  }
  if (options.fold_variants) {
    fold_variant_sequences(text);
    fold_floor_spellings(text);
  }
  if (options.drop_annotations) drop_delivery_notes(text);
}

}  // namespace

std::string AddressNormalizer::normalize(std::string_view utf8) const {
  if (!options_.any()) {
    if (const auto bad = find_invalid_utf8(utf8)) throw Utf8Error(*bad, "invalid UTF-8 at byte " + std::to_string(*bad));
    return std::string(utf8);
  }
  std::u32string text = decode_utf8(utf8);
  normalize_once(text, options_);
  if (options_.drop_annotations || options_.decode_markup || options_.fold_variants) {
    // Dropping one annotation can bring the text around it together into another
    // (138(近X)12345678, or a hint around a hint), and folding can complete one
    // (138--1234--5678), and a decoded reference can be a width or a variant to fold
    // (&#65288; is （), and a dropped dot can complete a floor (地·下1层): again until
    // nothing changes, so that normalizing twice gives what normalizing once gives. It
    // ends: every round that changes the text shortens it or moves a floor's spelling
    // toward the one spelling, which no rule undoes.
    for (std::u32string again = text;; text = again) {
      normalize_once(again, options_);
      if (again == text) break;
    }
  }
  // Blank cleaning can bring a letter and its accent together (e, U+200B, U+0301).
  std::string out = encode_utf8(unicode::nfc(text));
  if (opencc_) out = opencc_->convert(out);
  return out;
}

}  // namespace geoalign::text
