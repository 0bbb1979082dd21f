#include "backend/cpu/row_chunked_matmul.h"

#include <algorithm>
#include <cstring>
#include <omp.h>
#include <vector>

#include "geoalign/error.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

// 64-byte-aligned per-thread scratch that only grows.
struct ThreadScratch {
  std::vector<std::byte> bytes;
  std::byte* get(std::size_t size) {
    if (bytes.size() < size + 64) bytes.resize(size + 64);
    auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
    return bytes.data() + ((64 - address % 64) % 64);
  }
};

std::byte* scratch(int slot, std::size_t size) {
  thread_local ThreadScratch buffers[3];
  return buffers[slot].get(size);
}

enum ScratchSlot { kSrcSlot = 0, kDstSlot = 1, kOneDnnSlot = 2 };

}  // namespace

RowChunkedMatmul::RowChunkedMatmul(std::int64_t in, std::int64_t out, dt src_type, dt weight_type,
                                   const void* plain_weights, bool bias, dnnl::primitive_attr attr)
    : in_(in), out_(out), src_type_(src_type), src_element_size_(memory::data_type_size(src_type)) {
  auto& engine = onednn_engine();
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto make = [&](std::int64_t rows, const memory::desc& weights_md) {
    const memory::desc src_md({rows, in_}, src_type_, tag::ab);
    const memory::desc dst_md({rows, out_}, dt::f32, tag::ab);
    const memory::desc bias_md({1, out_}, dt::f32, tag::ab);
    return bias ? dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, weights_md, bias_md, dst_md), attr, engine)
                : dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, weights_md, dst_md), attr, engine);
  };
  // The largest bucket picks the weight layout; the smaller ones must accept it, and a
  // bucket whose kernels cannot is left out (its rows use the next bucket up).
  const auto full = make(kMaxRows, memory::desc({in_, out_}, weight_type, tag::any));
  kernel_ = full.impl_info_str();
  weights_ = repack(memory({{in_, out_}, weight_type, tag::ba}, engine, const_cast<void*>(plain_weights)),
                    full.weights_desc());
  std::vector<dnnl::matmul::primitive_desc> descs;
  // Bucket sizes waste at most a third of a small remainder's work on padding rows
  // (at batch 1 a pair is ~40 tokens: 48 rows, not 64).
  for (const std::int64_t rows : {16, 32, 48, 64, 96, 128, 192}) {
    try {
      auto pd = make(rows, full.weights_desc());
      descs.push_back(pd);
      buckets_.push_back({rows, dnnl::matmul(pd)});
    } catch (const dnnl::error&) {
      continue;
    }
  }
  descs.push_back(full);
  buckets_.push_back({kMaxRows, dnnl::matmul(full)});
  for (const auto& pd : descs) scratchpad_bytes_ = std::max(scratchpad_bytes_, pd.scratchpad_desc().get_size());
}

void RowChunkedMatmul::run(const Bucket& bucket, const void* src, float* dst,
                           std::unordered_map<int, memory>& args) const {
  auto& engine = onednn_engine();
  args[DNNL_ARG_SRC] = memory({{bucket.rows, in_}, src_type_, tag::ab}, engine, const_cast<void*>(src));
  args[DNNL_ARG_DST] = memory({{bucket.rows, out_}, dt::f32, tag::ab}, engine, dst);
  auto& stream = onednn_stream();
  bucket.matmul.execute(stream, args);
  stream.wait();
}

void RowChunkedMatmul::run_rows(const void* src, std::int64_t first, std::int64_t count, float* dst,
                                std::unordered_map<int, memory>& args) const {
  const auto* x = static_cast<const std::byte*>(src);
  const std::size_t src_row_bytes = static_cast<std::size_t>(in_) * src_element_size_;
  const std::size_t dst_row_bytes = static_cast<std::size_t>(out_) * sizeof(float);
  const Bucket& bucket = *std::find_if(buckets_.begin(), buckets_.end(), [&](const Bucket& b) { return b.rows >= count; });
  if (bucket.rows == count) {
    run(bucket, x + static_cast<std::size_t>(first) * src_row_bytes, dst + first * out_, args);
    return;
  }
  // The bucket reads and writes whole `bucket.rows` rows, so the remainder is staged;
  // the padding rows are zeros and their results are dropped.
  const auto used = static_cast<std::size_t>(count);
  std::byte* padded_src = scratch(kSrcSlot, static_cast<std::size_t>(bucket.rows) * src_row_bytes);
  std::memcpy(padded_src, x + static_cast<std::size_t>(first) * src_row_bytes, used * src_row_bytes);
  std::memset(padded_src + used * src_row_bytes, 0, static_cast<std::size_t>(bucket.rows - count) * src_row_bytes);
  auto* padded_dst = reinterpret_cast<float*>(scratch(kDstSlot, static_cast<std::size_t>(bucket.rows) * dst_row_bytes));
  run(bucket, padded_src, padded_dst, args);
  std::memcpy(dst + first * out_, padded_dst, used * dst_row_bytes);
}

void RowChunkedMatmul::run_range(const void* src, std::int64_t first, std::int64_t end, float* dst,
                                 std::unordered_map<int, memory>& args) const {
  for (std::int64_t r = first; r < end; r += kMaxRows) run_rows(src, r, std::min(kMaxRows, end - r), dst, args);
}

void RowChunkedMatmul::use_thread_scratchpad(std::unordered_map<int, memory>& args) const {
  if (scratchpad_bytes_ == 0) return;
  args[DNNL_ARG_SCRATCHPAD] = memory({{static_cast<memory::dim>(scratchpad_bytes_)}, dt::u8, tag::a},
                                     onednn_engine(), scratch(kOneDnnSlot, scratchpad_bytes_));
}

void RowChunkedMatmul::execute(const void* src, std::int64_t rows, float* dst,
                               std::unordered_map<int, memory> args) const {
  args[DNNL_ARG_WEIGHTS] = weights_;
  const int threads = omp_get_max_threads();
  if (threads > 1 && rows > (2 * threads - 1) * kMaxRows && !omp_in_parallel()) {
    // Enough rows to share: each thread takes an equal run of rows in chunks, and
    // oneDNN, called inside a parallel region, runs each chunk on its caller's thread
    // alone. One fork and join per layer instead of one per chunk, and no thread waits
    // on another's extra chunk (whole chunks dealt out left one thread up to a chunk
    // behind: 1,792 rows against 1,408 at batch 64).
#pragma omp parallel firstprivate(args)
    {
      use_thread_scratchpad(args);
      const std::int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
      run_range(src, rows * t / n, rows * (t + 1) / n, dst, args);
    }
    return;
  }
  use_thread_scratchpad(args);
  run_range(src, 0, rows, dst, args);
}

}  // namespace geoalign::cpu
