#include "index/exact_neighbours.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include <oneapi/dnnl/dnnl.h>

#include "backend/cpu/parallel.h"
#include "geoalign/error.h"

namespace geoalign::index {

namespace {
// Query rows per GEMM: one block's scores (kBlock x n floats) stay a few MB per thread.
constexpr std::size_t kBlock = 64;
}  // namespace

std::vector<std::vector<Hit>> exact_neighbours(std::span<const float> rows, std::size_t dim, std::size_t k,
                                               const std::function<void(std::size_t)>& on_done) {
  return exact_neighbours(rows, rows, dim, k, true, on_done);
}

std::vector<std::vector<Hit>> exact_neighbours(std::span<const float> queries, std::span<const float> rows,
                                               std::size_t dim, std::size_t k, bool same_rows,
                                               const std::function<void(std::size_t)>& on_done) {
  if (dim == 0 || rows.size() % dim != 0 || queries.size() % dim != 0) {
    throw Error("exact_neighbours: rows are not a multiple of the dimension");
  }
  const std::size_t n = rows.size() / dim, queried = queries.size() / dim;
  if (same_rows && queried != n) throw Error("exact_neighbours: same_rows with different row counts");
  std::vector<std::vector<Hit>> out(queried);
  const std::size_t blocks = (queried + kBlock - 1) / kBlock;
  std::atomic<std::size_t> done{0};
  std::atomic<bool> failed{false};
  // Each block is one single-threaded GEMM (oneDNN runs sequentially inside our parallel
  // region), so a score never depends on how many threads ran.
  cpu::parallel_for_dynamic(static_cast<std::int64_t>(blocks), 1, [&](std::int64_t b) {
    const std::size_t first = static_cast<std::size_t>(b) * kBlock;
    const std::size_t m = std::min(kBlock, queried - first);
    thread_local std::vector<float> scores;
    scores.resize(m * n);
    const auto d = static_cast<dnnl_dim_t>(dim);
    const dnnl_status_t status =
        dnnl_sgemm('N', 'T', static_cast<dnnl_dim_t>(m), static_cast<dnnl_dim_t>(n), d, 1.0f, queries.data() + first * dim, d,
                   rows.data(), d, 0.0f, scores.data(), static_cast<dnnl_dim_t>(n));
    if (status != dnnl_success) {
      failed = true;  // no exception may leave an OpenMP region
      return;
    }
    for (std::size_t i = 0; i < m; ++i) {
      const float* s = scores.data() + i * n;
      const auto self = same_rows ? static_cast<std::uint32_t>(first + i) : std::numeric_limits<std::uint32_t>::max();
      // A heap of the best k so far, worst on top: most rows fail the first comparison.
      auto better = [s](std::uint32_t x, std::uint32_t y) { return s[x] != s[y] ? s[x] > s[y] : x < y; };
      std::vector<std::uint32_t> best;
      best.reserve(k + 1);
      for (std::uint32_t j = 0; j < n; ++j) {
        if (j == self || k == 0) continue;
        if (best.size() == k && !better(j, best.front())) continue;
        best.push_back(j);
        std::push_heap(best.begin(), best.end(), better);
        if (best.size() > k) {
          std::pop_heap(best.begin(), best.end(), better);
          best.pop_back();
        }
      }
      std::sort_heap(best.begin(), best.end(), better);
      auto& hits = out[first + i];
      hits.reserve(best.size());
      for (std::uint32_t j : best) hits.push_back({j, s[j]});
    }
    if (on_done) on_done(done += m);
  });
  if (failed) throw Error("exact_neighbours: oneDNN's sgemm failed");
  return out;
}

}  // namespace geoalign::index
