#pragma once

#include <string>
#include <string_view>

// Character classes and transforms with the exact meaning Hugging Face's BertTokenizer
// gives them (which follow Python's unicodedata), backed by ICU.
namespace geoalign::text::unicode {

bool is_control(char32_t c);        // category C*, except \t \n \r
bool is_whitespace(char32_t c);     // ' ', \t, \n, \r or category Zs
bool is_python_space(char32_t c);   // Python's str.isspace(), used by str.split()
bool is_punctuation(char32_t c);    // ASCII symbols or category P*
bool is_cjk_ideograph(char32_t c);  // the CJK blocks BERT splits into single characters
bool is_nonspacing_mark(char32_t c);

// True when valid UTF-8 text holds only whitespace and control/format characters:
// an address with nothing in it. Throws Utf8Error on invalid UTF-8.
bool is_blank(std::string_view utf8);

std::u32string nfc(std::u32string_view s);
std::u32string nfd(std::u32string_view s);
// Full case mapping, as Python's str.lower().
std::u32string to_lower(std::u32string_view s);

}  // namespace geoalign::text::unicode
