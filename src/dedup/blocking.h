#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dedup/pair_evidence.h"
#include "dedup/stated_region.h"
#include "index/address_index.h"

namespace geoalign::dedup {

// Up to this many addresses, blocking finds vector neighbours exactly (index::exact_neighbours):
// cheaper than an HNSW graph at this size, and the same on every run and in every process.
constexpr std::size_t kExactNeighboursUpTo = 50000;

// Postings one address's lexical lookup may scan: blocking runs one lookup per address, so
// its cost must not grow with the file (the rarest grams, which decide, come first).
constexpr std::size_t kBlockingPostings = 20000;

// More candidates per address than this buy no recall a head could use and cost memory
// in proportion: 1,000 is already 2,000 pairs an address.
constexpr std::size_t kMaxNeighbours = 1000;

// Candidate pairs: each address with its `neighbours` nearest by characters (char-gram
// TF-IDF) and by embedding (unit vectors, texts.size() * dim floats), minus pairs whose
// stated regions conflict; sorted, without repeats. Never all pairs. Throws Error unless
// neighbours is in 1..kMaxNeighbours.
std::vector<AddressPair> block(std::span<const std::string> texts, std::span<const StatedRegion> regions,
                               std::span<const float> vectors, std::size_t neighbours,
                               const index::BuildProgress& progress = {});

}  // namespace geoalign::dedup
