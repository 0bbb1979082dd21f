#include "dedup/pair_scoring.h"

#include <atomic>

#include "backend/cpu/parallel.h"

namespace geoalign::dedup {

namespace {
// Pairs scored per call: large enough to amortize, small enough to spread over cores.
constexpr std::size_t kScoreChunk = 2048;
}  // namespace

std::vector<PairEvidence> score_pairs(const engine::Engine& model, std::span<const engine::Address> addresses,
                                      std::span<const AddressPair> pairs,
                                      const std::function<void(std::size_t)>& on_done) {
  std::vector<PairEvidence> out(pairs.size());
  std::atomic<std::size_t> done{0};
  auto run_chunk = [&](std::size_t first) {
    const std::size_t m = std::min(kScoreChunk, pairs.size() - first);
    std::vector<std::pair<const engine::Address*, const engine::Address*>> refs;
    refs.reserve(m);
    for (std::size_t j = first; j < first + m; ++j) refs.emplace_back(&addresses[pairs[j].first], &addresses[pairs[j].second]);
    const std::vector<MatchResult> results = model.score(refs, PairReading::Symmetric);
    for (std::size_t j = 0; j < m; ++j) out[first + j] = PairEvidence::of(pairs[first + j].first, pairs[first + j].second, results[j]);
    if (on_done) on_done(done += m);
  };
  const std::size_t chunks = (pairs.size() + kScoreChunk - 1) / kScoreChunk;
  if (model.fast_pairs()) {
    cpu::parallel_for_dynamic(static_cast<std::int64_t>(chunks), 1,
                              [&](std::int64_t c) { run_chunk(static_cast<std::size_t>(c) * kScoreChunk); });
  } else {
    for (std::size_t c = 0; c < chunks; ++c) run_chunk(c * kScoreChunk);
  }
  return out;
}

}  // namespace geoalign::dedup
