#include "geoalign/dedup.h"

#include <algorithm>

#include "backend/threads.h"
#include "dedup/blocking.h"
#include "dedup/dedup_table.h"
#include "dedup/deduplicator.h"
#include "dedup/pair_scoring.h"

namespace geoalign {

static_assert(kMaxDedupNeighbours == dedup::kMaxNeighbours);
static_assert(kDedupExactNeighboursUpTo == dedup::kExactNeighboursUpTo);

// The public types mirror the engine's dedup types field for field; these convert between
// them at the API's edge.
namespace {

dedup::DedupOptions engine_options(const DedupOptions& options) {
  dedup::DedupOptions o;
  o.threshold = options.threshold;
  o.rule = dedup::parse_merge_rule(options.merge);
  o.neighbours = options.neighbours;
  return o;
}

std::vector<dedup::StatedRegion> engine_regions(std::span<const StatedRegion> regions) {
  std::vector<dedup::StatedRegion> out(regions.size());
  std::transform(regions.begin(), regions.end(), out.begin(), [](const StatedRegion& r) {
    return dedup::StatedRegion{r.province, r.city};
  });
  return out;
}

ScoredPair public_pair(const dedup::PairEvidence& e) {
  return {e.a, e.b, e.label_id, e.p_not_match, e.p_partial_match, e.p_exact_match};
}

// Pairs must name addresses that exist, each pair two different ones, for the stages that
// index parses and vectors with them.
template <typename Pair>
void check_pairs(std::span<const Pair> pairs, std::size_t addresses, const char* what) {
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].a >= addresses || pairs[i].b >= addresses || pairs[i].a == pairs[i].b) {
      throw Error(std::string(what) + " " + std::to_string(i) + " (" + std::to_string(pairs[i].a) + ", " +
                  std::to_string(pairs[i].b) + ") does not name two of the " + std::to_string(addresses) + " addresses");
    }
  }
}

DedupTable public_table(const dedup::DedupTable& t) {
  return {t.cluster_row, t.cluster_size, t.best_match_row, t.best_match_score, t.clusters};
}

}  // namespace

struct Deduplicator::Impl {
  std::unique_ptr<engine::Engine> model;
};

Deduplicator::Deduplicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Deduplicator::Deduplicator(Deduplicator&&) noexcept = default;
Deduplicator& Deduplicator::operator=(Deduplicator&&) noexcept = default;
Deduplicator::~Deduplicator() = default;

Deduplicator Deduplicator::load(const std::filesystem::path& model_dir, const DedupModelOptions& options) {
  adopt_num_threads();
  auto impl = std::make_unique<Impl>();
  impl->model = engine::Engine::load(model_dir, {.precision = options.precision,
                                                     .parser_dir = options.parser,
                                                     .aliases = options.aliases,
                                                     .head = engine::parse_head(options.head)});
  return Deduplicator(std::move(impl));
}

DedupTable Deduplicator::run(std::span<const std::string> rows, const DedupOptions& options) const {
  adopt_num_threads();
  if (rows.empty()) throw Error("no addresses to deduplicate");
  return public_table(dedup::dedup_table(dedup::deduplicate(*impl_->model, rows, engine_options(options))));
}

std::string Deduplicator::normalize(std::string_view row) const { return impl_->model->normalize(row); }

DistinctAddresses Deduplicator::number_addresses(std::vector<std::string> normalized) {
  dedup::DistinctAddresses d = dedup::number_addresses(std::move(normalized));
  return {std::move(d.texts), std::move(d.address_of_row)};
}

LocatedAddresses Deduplicator::embed_and_locate(std::span<const std::string> texts) const {
  adopt_num_threads();
  dedup::LocatedAddresses l = dedup::locate_and_embed(*impl_->model, texts);
  LocatedAddresses out;
  out.dim = impl_->model->dim();
  out.vectors = std::move(l.vectors);
  out.regions.reserve(l.regions.size());
  for (const auto& r : l.regions) out.regions.push_back({r.prov, r.city});
  return out;
}

std::vector<CandidatePair> Deduplicator::block(std::span<const std::string> texts, const LocatedAddresses& located,
                                               std::size_t neighbours) {
  adopt_num_threads();
  if (located.regions.size() != texts.size() || located.vectors.size() != texts.size() * located.dim) {
    throw Error("dedup blocking: " + std::to_string(texts.size()) + " addresses, but " +
                std::to_string(located.regions.size()) + " regions and " + std::to_string(located.vectors.size()) +
                " vector values of dimension " + std::to_string(located.dim));
  }
  const std::vector<dedup::AddressPair> pairs =
      dedup::block(texts, engine_regions(located.regions), located.vectors, neighbours);
  std::vector<CandidatePair> out(pairs.size());
  std::transform(pairs.begin(), pairs.end(), out.begin(), [](const dedup::AddressPair& p) {
    return CandidatePair{p.first, p.second};
  });
  return out;
}

std::vector<ScoredPair> Deduplicator::score(std::span<const std::string> texts,
                                            std::span<const CandidatePair> pairs) const {
  adopt_num_threads();
  check_pairs(pairs, texts.size(), "pair");
  std::vector<dedup::AddressPair> p(pairs.size());
  std::vector<char> named(texts.size(), 0);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    p[i] = {pairs[i].a, pairs[i].b};
    named[pairs[i].a] = named[pairs[i].b] = 1;
  }
  // Only the addresses the pairs name are parsed: a chunk of pairs names few of them.
  const std::vector<engine::Address> parsed = impl_->model->prepare_all(texts, {}, named);
  const std::vector<dedup::PairEvidence> evidence = dedup::score_pairs(*impl_->model, parsed, p);
  std::vector<ScoredPair> out(evidence.size());
  std::transform(evidence.begin(), evidence.end(), out.begin(), public_pair);
  return out;
}

AddressClusters Deduplicator::cluster(std::span<const std::string> texts, std::span<const ScoredPair> scored,
                                      std::span<const StatedRegion> regions, const DedupOptions& options) const {
  adopt_num_threads();
  check_pairs(scored, texts.size(), "scored pair");
  if (regions.size() != texts.size()) {
    throw Error("dedup clustering: " + std::to_string(texts.size()) + " addresses, but " +
                std::to_string(regions.size()) + " regions");
  }
  const dedup::DedupOptions o = engine_options(options);
  std::vector<dedup::PairEvidence> evidence(scored.size());
  std::transform(scored.begin(), scored.end(), evidence.begin(), [](const ScoredPair& s) {
    return dedup::PairEvidence{s.a, s.b, s.label_id, s.p_not_match, s.p_partial_match, s.p_exact_match};
  });
  // Clustering asks for few pairs beyond the candidates: their addresses are parsed when
  // first named.
  dedup::Entities e = dedup::cluster_addresses(*impl_->model, texts, std::vector<engine::Address>(texts.size()), evidence,
                                               o.rule, threshold(options), engine_regions(regions));
  return {std::move(e.cluster), std::move(e.best_match), std::move(e.best_link), e.on_demand.size()};
}

DedupTable Deduplicator::table(std::span<const std::uint32_t> address_of_row, const AddressClusters& clusters) {
  dedup::DedupResult r;
  r.address_of_row.assign(address_of_row.begin(), address_of_row.end());
  r.cluster = clusters.cluster;
  r.best_match = clusters.best_match;
  r.best_link = clusters.best_link;
  r.texts.resize(r.cluster.size());  // dedup_table checks every array against the address count
  return public_table(dedup::dedup_table(r));
}

float Deduplicator::threshold(const DedupOptions& options) const {
  const dedup::DedupOptions o = engine_options(options);
  return o.threshold.value_or(dedup::default_threshold(*impl_->model, o.rule));
}

float Deduplicator::link(const ScoredPair& s, std::string_view merge) {
  return dedup::link_of({s.a, s.b, s.label_id, s.p_not_match, s.p_partial_match, s.p_exact_match},
                        dedup::parse_merge_rule(merge));
}

const std::vector<std::string>& Deduplicator::labels() const { return impl_->model->labels(); }

}  // namespace geoalign
