#include "backend/cpu/row_chunked_matmul.h"

#include <algorithm>
#include <cstring>
#include <omp.h>
#include <vector>

#include "backend/cpu/parallel.h"
#include "backend/threads.h"
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

// This thread's memory object for an operand of a shape, pointed at `data`: making one
// costs oneDNN an aligned allocation and a free, and a layer run in row blocks would
// make three per block. The operand's role is part of the key, so a product whose
// source and result have one shape never gets one object for both.
memory thread_memory(int role, std::int64_t rows, std::int64_t cols, dt type, void* data) {
  struct Made {
    int role;
    std::int64_t rows, cols;
    dt type;
    memory object;
  };
  thread_local std::vector<Made> made;
  for (Made& m : made) {
    if (m.role == role && m.rows == rows && m.cols == cols && m.type == type) {
      m.object.set_data_handle(data);
      return m.object;
    }
  }
  made.push_back({role, rows, cols, type, memory({{rows, cols}, type, tag::ab}, onednn_engine(), data)});
  return made.back().object;
}

}  // namespace

RowChunkedMatmul::RowChunkedMatmul(std::int64_t in, std::int64_t out, dt src_type, dt weight_type,
                                   const void* plain_weights, bool bias, dnnl::primitive_attr attr,
                                   std::int64_t chunk_rows)
    : in_(in), out_(out), src_type_(src_type), src_element_size_(memory::data_type_size(src_type)),
      chunk_rows_(chunk_rows) {
  auto& engine = onednn_engine();
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  // Kernels are made for the model's thread count even where the weights are packed on
  // one thread (backend/threads.h).
  auto make = [&](std::int64_t rows, const memory::desc& weights_md) {
    const KernelThreadsScope kernel_threads;
    const memory::desc src_md({rows, in_}, src_type_, tag::ab);
    const memory::desc dst_md({rows, out_}, dt::f32, tag::ab);
    const memory::desc bias_md({1, out_}, dt::f32, tag::ab);
    return bias ? dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, weights_md, bias_md, dst_md), attr, engine)
                : dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, weights_md, dst_md), attr, engine);
  };
  const auto kernel_of = [](const dnnl::matmul::primitive_desc& pd) {
    const KernelThreadsScope kernel_threads;
    return dnnl::matmul(pd);
  };
  // The largest bucket picks the weight layout; the smaller ones must accept it, and a
  // bucket whose kernels cannot is left out (its rows use the next bucket up).
  const auto full = make(chunk_rows_, memory::desc({in_, out_}, weight_type, tag::any));
  kernel_ = full.impl_info_str();
  weights_ = repack(memory({{in_, out_}, weight_type, tag::ba}, engine, const_cast<void*>(plain_weights)),
                    full.weights_desc());
  std::vector<dnnl::matmul::primitive_desc> descs;
  // Bucket sizes waste at most a third of a small remainder's work on padding rows
  // (at batch 1 a pair is ~40 tokens: 48 rows, not 64).
  for (const std::int64_t rows : {16, 32, 48, 64, 96, 128, 192}) {
    if (rows >= chunk_rows_) break;
    try {
      auto pd = make(rows, full.weights_desc());
      descs.push_back(pd);
      buckets_.push_back({rows, kernel_of(pd)});
    } catch (const dnnl::error&) {
      continue;
    }
  }
  descs.push_back(full);
  buckets_.push_back({chunk_rows_, kernel_of(full)});
  for (const auto& pd : descs) scratchpad_bytes_ = std::max(scratchpad_bytes_, pd.scratchpad_desc().get_size());
}

void RowChunkedMatmul::run(const Bucket& bucket, const void* src, float* dst,
                           std::unordered_map<int, memory>& args) const {
  args[DNNL_ARG_SRC] = thread_memory(DNNL_ARG_SRC, bucket.rows, in_, src_type_, const_cast<void*>(src));
  args[DNNL_ARG_DST] = thread_memory(DNNL_ARG_DST, bucket.rows, out_, dt::f32, dst);
  auto& stream = onednn_stream();
  bucket.matmul.execute(stream, args);
  stream.wait();
}

void RowChunkedMatmul::run_rows(const Source& source, std::int64_t first, std::int64_t count, float* dst,
                                std::unordered_map<int, memory>& args, const FinishRows* finish) const {
  const std::size_t src_row_bytes = static_cast<std::size_t>(in_) * src_element_size_;
  const std::size_t dst_row_bytes = static_cast<std::size_t>(out_) * sizeof(float);
  const Bucket& bucket = *std::find_if(buckets_.begin(), buckets_.end(), [&](const Bucket& b) { return b.rows >= count; });
  const auto used = static_cast<std::size_t>(count);
  const void* src = source.stage ? nullptr
                                  : static_cast<const std::byte*>(source.rows) + static_cast<std::size_t>(first) * src_row_bytes;
  if (source.stage || bucket.rows != count) {
    // The bucket reads whole `bucket.rows` rows, so a remainder is staged with zero
    // padding rows, whose results are dropped.
    std::byte* staged = scratch(kSrcSlot, static_cast<std::size_t>(bucket.rows) * src_row_bytes);
    if (source.stage) {
      (*source.stage)(first, count, staged);
    } else {
      std::memcpy(staged, src, used * src_row_bytes);
    }
    std::memset(staged + used * src_row_bytes, 0, static_cast<std::size_t>(bucket.rows - count) * src_row_bytes);
    src = staged;
  }
  if (bucket.rows == count) {
    run(bucket, src, dst + first * out_, args);
  } else {
    auto* padded_dst = reinterpret_cast<float*>(scratch(kDstSlot, static_cast<std::size_t>(bucket.rows) * dst_row_bytes));
    run(bucket, src, padded_dst, args);
    std::memcpy(dst + first * out_, padded_dst, used * dst_row_bytes);
  }
  if (finish) (*finish)(first, count);
}

void RowChunkedMatmul::use_thread_scratchpad(std::unordered_map<int, memory>& args) const {
  if (scratchpad_bytes_ == 0) return;
  args[DNNL_ARG_SCRATCHPAD] = thread_memory(DNNL_ARG_SCRATCHPAD, 1, static_cast<std::int64_t>(scratchpad_bytes_),
                                            dt::u8, scratch(kOneDnnSlot, scratchpad_bytes_));
}

void RowChunkedMatmul::run_chunks(const Source& source, std::int64_t rows, float* dst,
                                  std::unordered_map<int, memory>& args, const FinishRows* finish) const {
  args[DNNL_ARG_WEIGHTS] = weights_;
  auto run_range = [&](std::int64_t first, std::int64_t end, std::unordered_map<int, memory>& thread_args) {
    use_thread_scratchpad(thread_args);
    for (std::int64_t r = first; r < end; r += chunk_rows_) {
      run_rows(source, r, std::min(chunk_rows_, end - r), dst, thread_args, finish);
    }
  };
  const int threads = omp_get_max_threads();
  if (threads > 1 && rows > (2 * threads - 1) * chunk_rows_ && !omp_in_parallel()) {
    // Enough rows to share: each thread takes an equal run of rows in chunks, and
    // oneDNN, called inside a parallel region, runs each chunk on its caller's thread
    // alone. One fork and join per layer instead of one per chunk, and no thread waits
    // on another's extra chunk (whole chunks dealt out left one thread up to a chunk
    // behind: 1,792 rows against 1,408 at batch 64).
    parallel_threads([&](std::int64_t t, std::int64_t n) {
      std::unordered_map<int, memory> thread_args = args;  // each thread points them at its own chunks
      run_range(rows * t / n, rows * (t + 1) / n, thread_args);
    });
    return;
  }
  run_range(0, rows, args);
}

void RowChunkedMatmul::execute(const void* src, std::int64_t rows, float* dst,
                               std::unordered_map<int, memory> args) const {
  run_chunks({src, nullptr}, rows, dst, args, nullptr);
}

void RowChunkedMatmul::execute_staged(std::int64_t rows, float* dst, std::unordered_map<int, memory> args,
                                      const StageRows& stage, const FinishRows& finish) const {
  run_chunks({nullptr, &stage}, rows, dst, args, finish ? &finish : nullptr);
}

}  // namespace geoalign::cpu
