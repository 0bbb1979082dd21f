#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace geoalign::text {

// geoalign's own address clean-up, applied before tokenization only when the model's
// config.json asks for it (key "geoalign.normalize"); a plain Hugging Face folder is
// tokenized exactly as Hugging Face would.
// Raised whenever normalize() writes something else for some text under the same
// options: an index stores normalized texts, and one built under another revision is
// rebuilt rather than matched against texts normalized anew. 1: floor spellings. 2: NFC
// (none of the 31,014 real addresses of ../shared/data changes). 3: a slash or bar
// between address parts is a blank (北京/朝阳区/建国路88号).
inline constexpr int kNormalizationRevision = 3;

struct NormalizeOptions {
  // U+FF01..U+FF5E -> U+0021..U+007E and U+3000 (ideographic space) -> ' '.
  bool fullwidth_to_halfwidth = false;
  // Drops control and format characters (zero-width spaces, byte-order marks); drops
  // whitespace runs beside an ideograph or punctuation (invisible to BERT's tokenizer) and
  // collapses the others to one space; trims ends. A slash, bar or backslash beside an
  // ideograph separates address parts (北京/朝阳区/建国路88号, from a form's cascading
  // fields) and is a blank; between letters or digits (2/3楼, A/B座) it stays.
  bool clean_whitespace = false;
  // Traditional -> simplified Chinese through OpenCC's t2s conversion, phrase by phrase
  // (needs a build with OpenCC; it also rewrites some simplified names: 乾县 -> 干县).
  bool traditional_to_simplified = false;
  // One spelling for the variants real address files mix: traditional-only characters,
  // circled and superscript digits, dashes, brackets, 3# for 3号, punctuation and quotes
  // at the ends (text/variant_folding.h); one spelling of a floor: 负一楼, 地下1层 and B1层
  // are 负1层, 11F is 11层 (text/floor_folding.h). Needs no OpenCC.
  bool fold_variants = false;
  // Drops what people write beside an address that is not part of it: phone numbers, the
  // recipient's name beside one, labelled postcodes and names, field labels, bracketed
  // landmark hints such as (近新街口), delivery notes such as (请放门卫), emoji
  // (text/annotations.h).
  bool drop_annotations = false;
  // Reads markup that exports leave in a column as what it stands for: HTML character
  // references (&nbsp; &middot; &#183;) and backslash escapes written out as text (\n)
  // (text/markup.h).
  bool decode_markup = false;

  bool any() const {
    return fullwidth_to_halfwidth || clean_whitespace || traditional_to_simplified || fold_variants ||
           drop_annotations || decode_markup;
  }

  // What geoalign's own models ask for, and what `parse` applies without a model.
  static NormalizeOptions addresses() {
    return {.fullwidth_to_halfwidth = true,
            .clean_whitespace = true,
            .fold_variants = true,
            .drop_annotations = true,
            .decode_markup = true};
  }
};

class AddressNormalizer {
 public:
  explicit AddressNormalizer(NormalizeOptions options);
  ~AddressNormalizer();
  AddressNormalizer(AddressNormalizer&&) noexcept;
  AddressNormalizer& operator=(AddressNormalizer&&) noexcept;

  // Deterministic; throws Utf8Error on invalid UTF-8.
  std::string normalize(std::string_view utf8) const;
  const NormalizeOptions& options() const { return options_; }

 private:
  class OpenCC;
  NormalizeOptions options_;
  std::unique_ptr<OpenCC> opencc_;
};

}  // namespace geoalign::text
