#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "index/searcher.h"

namespace geoalign::link {

struct LinkOptions {
  // Matches kept per left address at most, best first.
  std::size_t k = 1;
  // Each right record matches one left address at most (and each left address one record):
  // the pairs with the highest P(exact_match) first, greedily.
  bool one_to_one = false;
  // How each left address is looked up: its candidates, how many the pair scorer rescores
  // (every match is a rescored candidate, so at least k), the region, the reading.
  index::SearchOptions search;
};

// A right record a left address matches: one the pair scorer does not call not_match.
struct LinkMatch {
  std::uint32_t record;
  MatchResult match;
};

// Links each left address to the records of `searcher`'s index (the right table): its
// matches, best first (the pair scorer's P(exact_match), as search ranks them), at most
// options.k, none when no rescored candidate is a match. Results in left order. `on_done`
// (may be empty) hears how many left addresses are done. Throws Error naming the first
// bad left address, and for k of 0 or more than options.search.rerank.
std::vector<std::vector<LinkMatch>> link_addresses(const index::Searcher& searcher, std::span<const std::string> left,
                                                   const LinkOptions& options,
                                                   const std::function<void(std::size_t)>& on_done = {});

// From every left address's matches (best first): at most one match per left address and
// per record, taken greedily by P(exact_match), highest first (ties: the earlier left
// address, then the lower record). Not an optimal assignment: a pair is never given up
// for two that would score more together.
std::vector<std::vector<LinkMatch>> one_to_one(std::vector<std::vector<LinkMatch>> matches);

}  // namespace geoalign::link
