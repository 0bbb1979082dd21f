#include "geoalign/index.h"

#include <algorithm>
#include <shared_mutex>

#include "backend/threads.h"
#include "index/address_index.h"
#include "index/searcher.h"
#include "link/linker.h"

namespace geoalign {

static_assert(std::string_view(Index::kManifestFile) == index::AddressIndex::kManifest);

// Pointers: the searcher, which keeps each region's records between searches, refers to
// the index and the model, and an Index moves.
struct Index::Impl {
  std::unique_ptr<engine::Engine> model;
  std::unique_ptr<index::AddressIndex> index;
  std::unique_ptr<index::Searcher> searcher;
  // Shared by searches; add() and save() take it alone, so a search never reads an index
  // that is changing (and a save records the generation it wrote).
  mutable std::shared_mutex mutex;

  Impl(index::AddressIndex ix, std::unique_ptr<engine::Engine> m)
      : model(std::move(m)),
        index(std::make_unique<index::AddressIndex>(std::move(ix))),
        searcher(std::make_unique<index::Searcher>(*index, *model)) {}
};

Index::Index(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Index::Index(Index&&) noexcept = default;
Index& Index::operator=(Index&&) noexcept = default;
Index::~Index() = default;

namespace {
engine::EngineOptions engine_options(const IndexOptions& options) {
  engine::EngineOptions out;
  out.precision = options.precision;
  out.head = engine::parse_head(options.head);
  out.aliases = options.aliases;
  return out;
}
}  // namespace

Index Index::create(const std::filesystem::path& model_dir, const IndexOptions& options) {
  auto model = engine::Engine::load(model_dir, engine_options(options));
  index::AddressIndex ix(model_dir, *model, index::VectorIndex::Options{options.links, options.build_candidates});
  return Index(std::make_unique<Impl>(std::move(ix), std::move(model)));
}

Index Index::open(const std::filesystem::path& dir, const std::filesystem::path& model_dir, const IndexOptions& options) {
  index::AddressIndex ix = index::AddressIndex::open(dir);
  const std::filesystem::path model_path = model_dir.empty() ? ix.model_dir() : model_dir;
  ix.check_model(model_path);
  auto model = engine::Engine::load(model_path, engine_options(options));
  return Index(std::make_unique<Impl>(std::move(ix), std::move(model)));
}

void Index::add(std::span<const IndexRecord> records) {
  std::vector<index::NewRecord> added;
  added.reserve(records.size());
  for (const IndexRecord& r : records) added.push_back({r.id, r.address});
  const std::unique_lock lock(impl_->mutex);
  adopt_num_threads();
  impl_->index->add(*impl_->model, added);
}

void Index::save(const std::filesystem::path& dir) {
  const std::unique_lock lock(impl_->mutex);
  impl_->index->save(dir);
}

namespace {

index::SearchOptions search_options(const IndexSearchOptions& options, const index::Searcher& searcher) {
  index::SearchOptions o;
  o.k = options.k;
  o.rerank = options.rerank;
  o.candidates = options.candidates;
  o.region_from_query = options.region_from_query;
  o.reading = options.reading;
  if (!options.region.empty()) o.region = searcher.region_code(options.region);
  return o;
}

}  // namespace

std::vector<std::vector<IndexHit>> Index::link(std::span<const std::string> left, const IndexLinkOptions& options) const {
  const std::shared_lock lock(impl_->mutex);
  adopt_num_threads();
  link::LinkOptions o{options.k, options.one_to_one, search_options(options.search, *impl_->searcher)};
  std::vector<std::vector<IndexHit>> out;
  out.reserve(left.size());
  for (auto& matches : link::link_addresses(*impl_->searcher, left, o)) {
    std::vector<IndexHit>& row = out.emplace_back();
    for (auto& [record, m] : matches) {
      const float p_exact = m.p_exact_match;
      row.push_back({std::string(impl_->index->id(record)), std::string(impl_->index->text(record)), p_exact,
                     std::move(m)});
    }
  }
  return out;
}

std::vector<std::vector<IndexHit>> Index::search(std::span<const std::string> queries,
                                                 const IndexSearchOptions& options) const {
  const std::shared_lock lock(impl_->mutex);
  adopt_num_threads();
  const index::Searcher& searcher = *impl_->searcher;
  const index::SearchOptions o = search_options(options, searcher);
  std::vector<std::vector<IndexHit>> out;
  out.reserve(queries.size());
  // In the CLI's batches, for the CLI's exact results.
  for (std::size_t first = 0; first < queries.size(); first += index::kSearchBatch) {
    const auto batch = queries.subspan(first, std::min(index::kSearchBatch, queries.size() - first));
    for (auto& hits : searcher.search(batch, o)) {
      std::vector<IndexHit>& row = out.emplace_back();
      for (auto& h : hits) {
        row.push_back({std::string(impl_->index->id(h.record)), std::string(impl_->index->text(h.record)), h.score,
                       std::move(h.match)});
      }
    }
  }
  return out;
}

std::size_t Index::size() const {
  const std::shared_lock lock(impl_->mutex);
  return impl_->index->size();
}

const std::filesystem::path& Index::model_dir() const { return impl_->index->model_dir(); }

}  // namespace geoalign
