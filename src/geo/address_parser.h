#pragma once

#include "geo/gazetteer.h"
#include "geo/sequence_tagger.h"
#include "geoalign/parser.h"

namespace geoalign {

struct AddressParser::Impl {
  geo::Gazetteer gazetteer;
  geo::SequenceTagger tagger;
  std::filesystem::path folder;
};

namespace geo {

inline constexpr const char* kTaggerFile = "tagger.bin";
inline constexpr const char* kGazetteerFile = "divisions.tsv";

// The elements the tagger finds in `text`, with code-point offsets.
std::vector<AddressElement> tag_elements(std::u32string_view text, const Gazetteer& gazetteer,
                                         const SequenceTagger& tagger);

}  // namespace geo
}  // namespace geoalign
