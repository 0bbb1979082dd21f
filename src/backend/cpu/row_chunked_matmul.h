#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "backend/cpu/onednn.h"

namespace geoalign::cpu {

// y[rows, out] = x[rows, in] W for a row count that changes every call, through
// primitives made once for fixed row counts: oneDNN's fastest kernels (brgemm) need the
// row count at creation, and beat its run-time-dimension GEMM by 1.2-1.8x here
// (tools/bench: M=45..2900 rows). Rows run in chunks of chunk_rows; a remainder goes
// through the smallest bucket (16, 32, 48, 64, 96, 128, 192 or chunk_rows rows) that holds
// it, padded in a per-thread buffer. The weights are packed once, in the layout the kernels want.
// Scratch memory is per thread too, so a call allocates nothing once warm.
class RowChunkedMatmul {
 public:
  static constexpr std::int64_t kDefaultChunkRows = 256;

  // plain_weights: the [in, out] matrix in column-major order (PyTorch's [out, in]
  // weight as stored), of weight_type. attr carries post-ops; `bias` adds a bias input.
  // chunk_rows: the most rows one product takes (at least 16).
  RowChunkedMatmul(std::int64_t in, std::int64_t out, dnnl::memory::data_type src_type,
                   dnnl::memory::data_type weight_type, const void* plain_weights, bool bias, dnnl::primitive_attr attr,
                   std::int64_t chunk_rows = kDefaultChunkRows);

  // src: rows x in values of src_type, rows packed; dst: rows x out floats.
  // `args` adds the inputs the attributes need (bias, scales, post-op operands).
  void execute(const void* src, std::int64_t rows, float* dst, std::unordered_map<int, dnnl::memory> args) const;

  // Writes a chunk's source rows [first, first + count) to `src` (count x in values of
  // src_type, rows packed): a conversion of the layer's input, run per chunk.
  using StageRows = std::function<void(std::int64_t first, std::int64_t count, void* src)>;
  // Finishes result rows [first, first + count) of dst in place.
  using FinishRows = std::function<void(std::int64_t first, std::int64_t count)>;

  // As execute, but each chunk's source is written by `stage` into a per-thread buffer
  // just before its product, and `finish` runs on its result rows just after, on the
  // same thread: the rows are still in that core's cache, where a pass over the whole
  // batch before or after would stream them from memory. Where chunks run one after
  // another on the calling thread (too few rows to split), both may run in parallel.
  void execute_staged(std::int64_t rows, float* dst, std::unordered_map<int, dnnl::memory> args,
                      const StageRows& stage, const FinishRows& finish) const;

  // The kernel oneDNN chose for full chunks ("brg:avx512_core_bf16").
  std::string kernel() const { return kernel_; }

 private:
  struct Bucket {
    std::int64_t rows = 0;
    dnnl::matmul matmul;
  };
  void run(const Bucket& bucket, const void* src, float* dst, std::unordered_map<int, dnnl::memory>& args) const;
  // Points args at the calling thread's oneDNN scratchpad.
  void use_thread_scratchpad(std::unordered_map<int, dnnl::memory>& args) const;
  // Where a chunk's source rows come from: the caller's matrix, or a stage step.
  struct Source {
    const void* rows = nullptr;
    const StageRows* stage = nullptr;
  };
  // Rows [first, first + count), count <= chunk_rows_, through the smallest bucket that holds them.
  void run_rows(const Source& source, std::int64_t first, std::int64_t count, float* dst,
                std::unordered_map<int, dnnl::memory>& args, const FinishRows* finish) const;
  // All rows in chunks of chunk_rows_, the last through its bucket; split over the threads
  // when there are enough.
  void run_chunks(const Source& source, std::int64_t rows, float* dst, std::unordered_map<int, dnnl::memory>& args,
                  const FinishRows* finish) const;

  std::int64_t in_, out_;
  dnnl::memory::data_type src_type_;
  std::size_t src_element_size_;
  std::int64_t chunk_rows_;
  std::vector<Bucket> buckets_;  // increasing rows; the last has chunk_rows_
  dnnl::memory weights_;
  std::size_t scratchpad_bytes_ = 0;
  std::string kernel_;
};

}  // namespace geoalign::cpu
