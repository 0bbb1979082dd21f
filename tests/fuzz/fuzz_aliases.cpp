// libFuzzer: arbitrary bytes as an alias table (aliases.tsv or a user's --aliases file)
// and a pair of addresses, split at the first two NUL bytes. A bad table is an Error, never
// a crash; a good one reconciles the pair the same whichever address comes first.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "geoalign/error.h"
#include "text/aliases.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t first = input.find('\0');
  const std::size_t second = first == std::string_view::npos ? first : input.find('\0', first + 1);
  std::istringstream table_text(std::string(input.substr(0, first)));
  geoalign::text::AliasTable table;
  try {
    table = geoalign::text::AliasTable::read(table_text, "fuzz");
  } catch (const geoalign::Error&) {
    return 0;
  }
  if (second == std::string_view::npos) return 0;
  const std::string a(input.substr(first + 1, second - first - 1)), b(input.substr(second + 1));
  // The engine hands reconcile() normalized, valid UTF-8 only.
  if (geoalign::text::find_invalid_utf8(a) || geoalign::text::find_invalid_utf8(b)) return 0;
  const auto ab = table.reconcile(a, b);
  const auto ba = table.reconcile(b, a);
  if (ab.has_value() != ba.has_value()) std::abort();
  if (ab && (ab->first != ba->second || ab->second != ba->first)) std::abort();
  if (ab && (geoalign::text::find_invalid_utf8(ab->first) || geoalign::text::find_invalid_utf8(ab->second))) std::abort();
  return 0;
}
