#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dedup/pair_evidence.h"
#include "geoalign/parser.h"
#include "index/address_index.h"

namespace geoalign::dedup {

// The province and city an address names itself, as administrative codes; 0 where it
// names none. Levels the parser completed from below do not count: a village name can
// complete to the wrong city, and blocking must not lose a match on a guess.
struct StatedRegion {
  std::uint64_t prov = 0, city = 0;
};
StatedRegion stated_region(const AdminChain& admin);

// Two addresses that each name a different province or city are never one place.
inline bool region_conflict(const StatedRegion& x, const StatedRegion& y) {
  return (x.prov && y.prov && x.prov != y.prov) || (x.city && y.city && x.city != y.city);
}

// Up to this many addresses, blocking finds vector neighbours exactly (index::exact_neighbours):
// cheaper than an HNSW graph at this size, and the same on every run and in every process.
constexpr std::size_t kExactNeighboursUpTo = 50000;

// Candidate pairs: each address with its `neighbours` nearest by characters (char-gram
// TF-IDF) and by embedding (unit vectors, texts.size() * dim floats), minus pairs whose
// stated regions conflict; sorted, without repeats. Never all pairs.
std::vector<AddressPair> block(std::span<const std::string> texts, std::span<const StatedRegion> regions,
                               std::span<const float> vectors, std::size_t neighbours,
                               const index::BuildProgress& progress = {});

}  // namespace geoalign::dedup
