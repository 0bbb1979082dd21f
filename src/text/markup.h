#pragma once

#include <string>
#include <string_view>

namespace geoalign::text {

// Markup that exports and web forms leave in an address column, read as what it stands for:
// - HTML character references: named ones an address can carry (&nbsp; &amp; &middot; and
//   the quotes and dashes), decimal and hexadecimal ones (&#183; &#x4E2D;); an unknown name
//   or a number that is no character stays as it is;
// - a backslash escape written out as text (\n, \r, \t) by an export that escaped a line
//   break twice, read as a blank.
// Repeats until nothing is left to decode (&amp;nbsp; is a no-break space), so decoding
// twice gives what decoding once gives.
void decode_markup(std::u32string& text);

// True when valid UTF-8 text holds nothing but whitespace and invisible characters once its
// markup is decoded (&nbsp;, &#8203;, a written-out \n): an address the normalizer leaves
// empty, which every interface refuses as it refuses a blank one. Throws Utf8Error on
// invalid UTF-8.
bool is_blank_address(std::string_view utf8);

}  // namespace geoalign::text
