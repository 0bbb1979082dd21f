#include "link/linker.h"

#include <algorithm>
#include <tuple>

#include "geoalign/error.h"

namespace geoalign::link {

std::vector<std::vector<LinkMatch>> link_addresses(const index::Searcher& searcher, std::span<const std::string> left,
                                                   const LinkOptions& options,
                                                   const std::function<void(std::size_t)>& on_done) {
  if (options.k == 0) throw Error("link: k must be at least 1");
  if (options.search.rerank < options.k) {
    throw Error("link: every match is a rescored candidate, so rerank (" + std::to_string(options.search.rerank) +
                ") must be at least k (" + std::to_string(options.k) + ")");
  }
  index::SearchOptions search = options.search;
  // One-to-one needs every rescored match of a left address: its best may go to another.
  search.k = options.one_to_one ? search.rerank : options.k;
  // The role, not a name: an MGeo folder calls it 不匹配.
  const auto not_match = searcher.model().scorer().folder().roles.not_match;
  std::vector<std::vector<LinkMatch>> matches;
  matches.reserve(left.size());
  // In the search's own batches, so a left address gets the results `geoalign search` gives it.
  for (std::size_t first = 0; first < left.size(); first += index::kSearchBatch) {
    const auto batch = left.subspan(first, std::min(index::kSearchBatch, left.size() - first));
    for (auto& hits : searcher.search(batch, search)) {
      std::vector<LinkMatch> found;
      for (auto& hit : hits) {
        if (!hit.match) break;  // past the rescored hits: no label to trust
        if (not_match && hit.match->label_id == *not_match) continue;
        found.push_back({hit.record, std::move(*hit.match)});
      }
      matches.push_back(std::move(found));
    }
    if (on_done) on_done(first + batch.size());
  }
  if (options.one_to_one) return one_to_one(std::move(matches));
  for (auto& found : matches) {
    if (found.size() > options.k) found.resize(options.k);
  }
  return matches;
}

std::vector<std::vector<LinkMatch>> one_to_one(std::vector<std::vector<LinkMatch>> matches) {
  struct Candidate {
    float p_exact;
    std::size_t left, rank;
    std::uint32_t record;
  };
  std::vector<Candidate> candidates;
  for (std::size_t l = 0; l < matches.size(); ++l) {
    for (std::size_t r = 0; r < matches[l].size(); ++r) {
      candidates.push_back({matches[l][r].match.p_exact_match, l, r, matches[l][r].record});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tuple(-a.p_exact, a.left, a.record) < std::tuple(-b.p_exact, b.left, b.record);
  });
  std::vector<std::vector<LinkMatch>> kept(matches.size());
  std::vector<char> taken_left(matches.size(), 0);
  std::uint32_t records = 0;
  for (const auto& c : candidates) records = std::max(records, c.record + 1);
  std::vector<char> taken_record(records, 0);
  for (const auto& c : candidates) {
    if (taken_left[c.left] || taken_record[c.record]) continue;
    taken_left[c.left] = taken_record[c.record] = 1;
    kept[c.left].push_back(std::move(matches[c.left][c.rank]));
  }
  return kept;
}

}  // namespace geoalign::link
