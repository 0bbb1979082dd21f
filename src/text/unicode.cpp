#include "text/unicode.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <vector>

#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::text::unicode {

namespace {

std::uint32_t category_mask(char32_t c) { return U_GET_GC_MASK(static_cast<UChar32>(c)); }

std::u16string to_utf16(std::u32string_view s) {
  std::u16string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x10000) {
      out.push_back(static_cast<char16_t>(c));
    } else {
      c -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (c >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (c & 0x3FF)));
    }
  }
  return out;
}

std::u32string from_utf16(const char16_t* s, std::size_t n) {
  std::u32string out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    char32_t c = s[i];
    if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] < 0xE000) {
      c = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00);
      ++i;
    }
    out.push_back(c);
  }
  return out;
}

void check(UErrorCode status, const char* what) {
  if (U_FAILURE(status)) throw Error(std::string("ICU ") + what + " failed: " + u_errorName(status));
}

// Runs an ICU UTF-16 transform that reports the needed length on overflow.
template <typename Fn>
std::u32string transform_utf16(std::u32string_view s, const char* what, Fn&& fn) {
  const std::u16string in = to_utf16(s);
  std::vector<char16_t> out(in.size() * 2 + 8);
  for (int attempt = 0; attempt < 2; ++attempt) {
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = fn(reinterpret_cast<const UChar*>(in.data()), static_cast<int32_t>(in.size()),
                         reinterpret_cast<UChar*>(out.data()), static_cast<int32_t>(out.size()), &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
      out.resize(static_cast<std::size_t>(n) + 1);
      continue;
    }
    check(status, what);
    return from_utf16(out.data(), static_cast<std::size_t>(n));
  }
  throw Error(std::string("ICU ") + what + ": output did not fit");
}

std::u32string normalize(std::u32string_view s, const UNormalizer2* (*instance)(UErrorCode*),
                         const char* what) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* norm = instance(&status);
  check(status, what);
  return transform_utf16(s, what, [norm](const UChar* in, int32_t n, UChar* out, int32_t cap, UErrorCode* st) {
    return unorm2_normalize(norm, in, n, out, cap, st);
  });
}

// Below U+0300 nothing decomposes under NFC or composes with a neighbour, and the CJK
// Unified Ideographs block is stable under both forms; that covers nearly all addresses.
bool stable_under_nfc(char32_t c) { return c < 0x300 || (c >= 0x4E00 && c <= 0x9FFF); }
bool stable_under_nfd(char32_t c) { return c < 0xC0 || (c >= 0x4E00 && c <= 0x9FFF); }

}  // namespace

bool is_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  return (category_mask(c) & U_GC_C_MASK) != 0;
}

bool is_whitespace(char32_t c) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return true;
  return (category_mask(c) & U_GC_ZS_MASK) != 0;
}

bool is_python_space(char32_t c) {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D:
    case 0x1C: case 0x1D: case 0x1E: case 0x1F: case 0x20:
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
    return true;
  }
  return (category_mask(c) & U_GC_P_MASK) != 0;
}

bool is_cjk_ideograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_nonspacing_mark(char32_t c) { return (category_mask(c) & U_GC_MN_MASK) != 0; }

bool is_blank(std::string_view utf8) {
  const std::u32string text = decode_utf8(utf8);
  return std::all_of(text.begin(), text.end(),
                     [](char32_t c) { return is_python_space(c) || is_whitespace(c) || is_control(c); });
}

std::u32string nfc(std::u32string_view s) {
  if (std::all_of(s.begin(), s.end(), stable_under_nfc)) return std::u32string(s);
  return normalize(s, unorm2_getNFCInstance, "NFC normalization");
}

std::u32string nfd(std::u32string_view s) {
  if (std::all_of(s.begin(), s.end(), stable_under_nfd)) return std::u32string(s);
  return normalize(s, unorm2_getNFDInstance, "NFD normalization");
}

std::u32string to_lower(std::u32string_view s) {
  if (std::all_of(s.begin(), s.end(), [](char32_t c) { return c < 0x80 || (c >= 0x4E00 && c <= 0x9FFF); })) {
    std::u32string out(s);
    for (char32_t& c : out) {
      if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
    }
    return out;
  }
  return transform_utf16(s, "lowercasing", [](const UChar* in, int32_t n, UChar* out, int32_t cap, UErrorCode* st) {
    return u_strToLower(out, cap, in, n, "", st);
  });
}

}  // namespace geoalign::text::unicode
