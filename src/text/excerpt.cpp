#include "text/excerpt.h"

namespace geoalign::text {

std::string excerpt(std::string_view value, std::size_t max_bytes) {
  if (value.size() <= max_bytes) return std::string(value);
  std::size_t cut = max_bytes;
  // Back to the first byte of a character: continuation bytes are 10xxxxxx.
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return std::string(value.substr(0, cut)) + "... (" + std::to_string(value.size()) + " bytes)";
}

}  // namespace geoalign::text
