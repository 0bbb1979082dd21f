#include "geo/address_tokens.h"

#include "text/unicode.h"
#include "text/utf8.h"
#include "text/variant_folding.h"

namespace geoalign::geo {

namespace {

enum class RunKind { Digit, Letter, Single };

RunKind run_kind(char32_t c) {
  if (c >= U'0' && c <= U'9') return RunKind::Digit;
  if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z')) return RunKind::Letter;
  return RunKind::Single;
}

}  // namespace

char32_t fold_width(char32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFEE0;
  if (c == 0x3000) return U' ';
  return c;
}

bool separates_elements(char32_t c) {
  switch (text::fold_bracket(fold_width(c))) {
    case U'(': case U')': case U',': case U';': case U'/': case U'|': return true;
    default: return false;
  }
}

bool separates_elements(const AddressElement& e) {
  const std::u32string c = text::decode_utf8(e.text);
  return c.size() == 1 && separates_elements(c[0]);
}

std::vector<AddressToken> tokenize_address(std::u32string_view text) {
  std::vector<AddressToken> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char32_t c = fold_width(text[i]);
    if (text::unicode::is_whitespace(c) || text::unicode::is_control(c) || c == 0) {
      ++i;
      continue;
    }
    AddressToken token;
    token.start = i;
    const RunKind kind = run_kind(c);
    do {
      text::append_utf8(token.text, fold_width(text[i]));
      ++i;
    } while (kind != RunKind::Single && i < text.size() && run_kind(fold_width(text[i])) == kind);
    token.end = i;
    tokens.push_back(std::move(token));
  }
  return tokens;
}

}  // namespace geoalign::geo
