#include "backend/cpu/row_blocks.h"

#include <algorithm>
#include <chrono>
#include <omp.h>
#include <vector>

#include "backend/cpu/attention.h"
#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/parallel.h"

namespace geoalign::cpu {

namespace {

// 64 rows: int8's chunk, whose product its epilogue finds in L2 (linear_int8.cpp); the
// rows between two steps (256 KB for the default model's 1024, 768 KB for BERT-base's
// 3072) stay there too.
constexpr std::int64_t kBlockRows = 64;

const RowLinear* row_linear(const ops::Linear& layer) { return dynamic_cast<const RowLinear*>(&layer.impl()); }

// Grown, never shrunk: one per thread and purpose.
float* thread_block(int slot, std::int64_t floats) {
  thread_local std::vector<float> blocks[2];
  auto& block = blocks[slot];
  if (block.size() < static_cast<std::size_t>(floats)) block.resize(static_cast<std::size_t>(floats));
  return block.data();
}

// Runs a linear step inside a parallel region, adding thread 0's time to the LinearClock.
template <typename Step>
void linear_step(Step&& step) {
  if (!ops::LinearClock::on() || omp_get_thread_num() != 0) {
    step();
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  step();
  ops::LinearClock::add(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

bool chain_in_row_blocks(const ops::Linear& first, const ops::Linear& second, const float* x, std::int64_t rows,
                         float* y) {
  const RowLinear* a = row_linear(first);
  const RowLinear* b = row_linear(second);
  const int threads = omp_get_max_threads();
  if (!a || !b || omp_in_parallel() || rows < kBlockRows * threads) return false;
  const std::int64_t in = first.in_features(), between = first.out_features(), out = second.out_features();
  // Each thread takes an equal run of rows; every step inside runs on it alone.
  parallel_threads([&](std::int64_t t, std::int64_t n) {
    float* block = thread_block(0, kBlockRows * between);
    const std::int64_t end = rows * (t + 1) / n;
    for (std::int64_t r = rows * t / n; r < end; r += kBlockRows) {
      const std::int64_t count = std::min(kBlockRows, end - r);
      a->forward_rows(x + r * in, count, block);
      b->forward_rows(block, count, y + r * out);
    }
  });
  return true;
}

bool attention_in_sequence_blocks(const ops::Linear& qkv, const ops::Linear& output, const float* x,
                                  std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, float* y) {
  const RowLinear* project_in = row_linear(qkv);
  const RowLinear* project_out = row_linear(output);
  const int threads = omp_get_max_threads();
  const auto sequences = static_cast<std::int64_t>(cu_seqlens.size()) - 1;
  const std::int64_t rows = cu_seqlens.back();
  if (!project_in || !project_out || omp_in_parallel() || sequences < threads || rows < kBlockRows * threads) {
    return false;
  }
  const std::int64_t hidden = output.out_features();
  // Each thread takes a run of whole sequences holding about an equal share of the
  // tokens, then blocks of whole sequences of at least kBlockRows rows.
  parallel_threads([&](std::int64_t t, std::int64_t n) {
    auto run_start = [&](std::int64_t part) {
      if (part == 0) return std::int64_t{0};
      if (part == n) return sequences;
      const auto share = static_cast<std::int32_t>(rows * part / n);
      const auto s = std::lower_bound(cu_seqlens.begin(), cu_seqlens.end(), share) - cu_seqlens.begin();
      return std::clamp<std::int64_t>(s, part, sequences - (n - part));
    };
    const std::int64_t end = run_start(t + 1);
    std::vector<std::int32_t> block_seqlens;
    for (std::int64_t s = run_start(t); s < end;) {
      const std::int64_t first_row = cu_seqlens[s];
      block_seqlens.assign(1, 0);
      while (s < end && block_seqlens.back() < kBlockRows) {
        ++s;
        block_seqlens.push_back(static_cast<std::int32_t>(cu_seqlens[s] - first_row));
      }
      const std::int64_t count = block_seqlens.back();
      float* projected = thread_block(0, count * 3 * hidden);
      float* context = thread_block(1, count * hidden);
      linear_step([&] { project_in->forward_rows(x + first_row * hidden, count, projected); });
      attend_sequences(projected, block_seqlens, num_heads, hidden, context);
      linear_step([&] { project_out->forward_rows(context, count, y + first_row * hidden); });
    }
  });
  return true;
}

}  // namespace geoalign::cpu
