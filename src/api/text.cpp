// The public text and parser helpers (geoalign/text.h, geoalign/parser.h) over the
// engine's own: one normalizer, one parse JSON, for every front end.
#include "geo/parse_json.h"
#include "geoalign/parser.h"
#include "geoalign/text.h"
#include "model/folder_parser.h"
#include "text/markup.h"
#include "text/normalize.h"

namespace geoalign {

std::string normalize_address(std::string_view utf8) {
  // Built once: its OpenCC tables take a while to load, and normalize() is const.
  static const text::AddressNormalizer normalizer{text::NormalizeOptions::addresses()};
  return normalizer.normalize(utf8);
}

bool is_blank_address(std::string_view utf8) { return text::is_blank_address(utf8); }

std::string to_json(const ParsedAddress& parsed) { return geo::parse_json(parsed).dump(); }

void set_bundled_parser_dir(const std::filesystem::path& dir) { model::set_bundled_parser_dir(dir); }

}  // namespace geoalign
