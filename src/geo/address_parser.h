#pragma once

#include <cstdint>

#include "geo/division_prior.h"
#include "geo/gazetteer.h"
#include "geo/historical.h"
#include "geo/sequence_tagger.h"
#include "geoalign/parser.h"

namespace geoalign {

struct AddressParser::Impl {
  geo::Gazetteer gazetteer;
  geo::SequenceTagger tagger;
  std::filesystem::path folder;
  geo::HistoricalDivisions historical;  // empty for a folder without historical.tsv
  geo::DivisionPrior prior;             // sizes only for a folder without division_counts.tsv
};

namespace geo {

inline constexpr const char* kTaggerFile = "tagger.bin";
inline constexpr const char* kGazetteerFile = "divisions.tsv";
// Optional: former divisions and their successors. The admin completion resolves their
// names; the tagger's gazetteer features see their full names (extract_features).
inline constexpr const char* kHistoricalFile = "historical.tsv";
// Optional: how many addresses lie in each division, the prior of the admin guess
// (admin_guess.h). Without it the guess falls back on the divisions' sizes.
inline constexpr const char* kPriorFile = "division_counts.tsv";

// Bumped whenever a change of code (not of the parser's files) changes the elements a text
// parses into: stored parses (an index's) carry it in their checksum, so they are parsed
// again rather than read as the new code's.
inline constexpr std::uint64_t kElementsVersion = 6;

// The elements the tagger finds in `text`, with code-point offsets.
std::vector<AddressElement> tag_elements(std::u32string_view text, const Gazetteer& gazetteer,
                                         const SequenceTagger& tagger, const HistoricalDivisions* historical = nullptr);

}  // namespace geo
}  // namespace geoalign
