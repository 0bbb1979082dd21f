#include "index/vector_index.h"


#include <algorithm>
#include <atomic>
#include <optional>
#include <string>

#include "runtime/run_in_parallel.h"
#include "geoalign/error.h"
#include "index/hnsw_checks.h"
#include "index/inner_product_distance.h"

namespace geoalign::index {

namespace {
// hnswlib's inner-product space with our run-time dispatched distance.
class InnerProductSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit InnerProductSpace(std::size_t dim) : dim_(dim), distance_(inner_product_distance()) {}
  std::size_t get_data_size() override { return dim_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return distance_; }
  void* get_dist_func_param() override { return &dim_; }

 private:
  std::size_t dim_;
  hnswlib::DISTFUNC<float> distance_;
};
}  // namespace

struct VectorIndex::Graph {
  explicit Graph(std::size_t dim) : space(dim) {}
  InnerProductSpace space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw;
};

VectorIndex::VectorIndex(std::size_t dim, Options options)
    : dim_(dim), options_(options), graph_(std::make_unique<Graph>(dim)) {
  graph_->hnsw = std::make_unique<hnswlib::HierarchicalNSW<float>>(&graph_->space, 1024, options.links,
                                                                   options.build_candidates);
}

VectorIndex::VectorIndex(VectorIndex&&) noexcept = default;
VectorIndex& VectorIndex::operator=(VectorIndex&&) noexcept = default;
VectorIndex::~VectorIndex() = default;

std::size_t VectorIndex::size() const { return graph_->hnsw->cur_element_count; }

void VectorIndex::add(std::span<const float> rows, const std::function<void(std::size_t)>& on_added) {
  if (rows.size() % dim_ != 0) throw Error("vector index: rows are not multiples of " + std::to_string(dim_));
  const std::size_t n = rows.size() / dim_, first = size();
  auto& hnsw = *graph_->hnsw;
  if (first + n > hnsw.max_elements_) hnsw.resizeIndex(std::max(first + n, 2 * hnsw.max_elements_));
  std::atomic<std::size_t> added{0};
  runtime::for_each_named(
      n, 64, [&](std::size_t k) { return "vector index: record " + std::to_string(first + k); },
      [&](std::size_t k) {
        hnsw.addPoint(rows.data() + k * dim_, first + k);
        const std::size_t done = ++added;
        if (on_added && done % 1024 == 0) on_added(done);
      });
  if (on_added) on_added(n);
}

std::vector<Hit> VectorIndex::search(std::span<const float> query, std::size_t k, std::size_t candidates,
                                     const RecordSet* only) const {
  if (query.size() != dim_) throw Error("vector index: query has " + std::to_string(query.size()) + " dimensions, not " +
                                        std::to_string(dim_));
  const std::size_t n = size();
  if (n == 0 || k == 0 || (only && only->size == 0)) return {};
  auto& hnsw = *graph_->hnsw;
  std::vector<Hit> hits;
  const auto better = [](const Hit& a, const Hit& b) { return a.score != b.score ? a.score > b.score : a.record < b.record; };
  // hnswlib 0.6 cannot filter inside the graph: it is asked for enough neighbours that
  // about 2k of them lie in `only`, and the rest are dropped. Where that is a good part of
  // `only` anyway, comparing `only` one by one costs less.
  std::size_t fetch = k;
  if (only) fetch = std::min(n, std::max({k * 10, candidates, (2 * k * n + only->size - 1) / only->size}));
  if (only && (only->size <= options_.exact_limit || only->size <= 8 * fetch)) {
    hits.reserve(only->size);
    only->for_each([&](std::uint32_t r) {
      const float distance = hnsw.fstdistfunc_(query.data(), hnsw.getDataByInternalId(hnsw.label_lookup_.at(r)),
                                               hnsw.dist_func_param_);
      hits.push_back({r, 1.0f - distance});
    });
    const std::size_t keep = std::min(k, hits.size());
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(keep), hits.end(), better);
    hits.resize(keep);
    return hits;
  }
  {
    // setEf is per index, not per query: a search names its own by passing it through
    // searchKnn's heap size instead.
    auto result = hnsw.searchKnn(query.data(), std::max(fetch, candidates));
    hits.reserve(result.size());
    while (!result.empty()) {
      const auto [distance, label] = result.top();
      result.pop();
      const auto r = static_cast<std::uint32_t>(label);
      if (!only || only->contains(r)) hits.push_back({r, 1.0f - distance});
    }
  }
  std::reverse(hits.begin(), hits.end());
  if (hits.size() > k) hits.resize(k);
  return hits;
}

namespace {
// The bytes hnswlib's saveIndex writes for `h`: it never checks its stream, so a full disk
// shows only as a file shorter than this.
std::uintmax_t saved_size(const hnswlib::HierarchicalNSW<float>& h) {
  std::uintmax_t bytes = sizeof h.offsetLevel0_ + sizeof h.max_elements_ + sizeof h.cur_element_count +
                         sizeof h.size_data_per_element_ + sizeof h.label_offset_ + sizeof h.offsetData_ +
                         sizeof h.maxlevel_ + sizeof h.enterpoint_node_ + sizeof h.maxM_ + sizeof h.maxM0_ + sizeof h.M_ +
                         sizeof h.mult_ + sizeof h.ef_construction_;
  bytes += static_cast<std::uintmax_t>(h.cur_element_count) * h.size_data_per_element_;
  for (std::size_t i = 0; i < h.cur_element_count; ++i) {
    bytes += sizeof(unsigned int);
    if (h.element_levels_[i] > 0) bytes += h.size_links_per_element_ * static_cast<std::size_t>(h.element_levels_[i]);
  }
  return bytes;
}
}  // namespace

void VectorIndex::write(const std::filesystem::path& file) const {
  try {
    graph_->hnsw->saveIndex(file.string());
  } catch (const std::exception& e) {
    throw Error(file.string() + ": " + e.what());
  }
  std::error_code ec;
  const std::uintmax_t written = std::filesystem::file_size(file, ec);
  if (ec || written != saved_size(*graph_->hnsw)) throw Error(file.string() + ": write failed (disk full?)");
}

VectorIndex VectorIndex::read(const std::filesystem::path& file, std::size_t dim, std::size_t records) {
  check_graph_file(file, dim, records);
  VectorIndex ix(dim, {});
  try {
    // Room for the records the index says it has, not for what the file's header asks.
    ix.graph_->hnsw = std::make_unique<hnswlib::HierarchicalNSW<float>>(&ix.graph_->space, file.string(), false,
                                                                        std::max<std::size_t>(records, 1));
  } catch (const std::exception& e) {
    throw Error(file.string() + ": " + e.what());
  }
  check_graph(*ix.graph_->hnsw, dim, file);
  return ix;
}

}  // namespace geoalign::index
