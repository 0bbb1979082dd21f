#include "backend/cuda/launch.cuh"
#include "backend/ops/embedding.h"

namespace geoalign::ops {

namespace {

// One block per token. An index outside its table is not read: the first such token is
// recorded in `bad` (what, token) for the host to report, as the CPU's check does.
__global__ void embed(const std::int32_t* ids, const std::int32_t* types, const std::int32_t* positions,
                      const float* word, std::int64_t words, const float* type_table, std::int64_t type_rows,
                      const float* position_table, std::int64_t position_rows, int hidden, float* out, int* bad) {
  const int t = blockIdx.x;
  const std::int32_t id = ids[t], type = types[t], pos = positions[t];
  const int which = id < 0 || id >= words ? 1 : type < 0 || type >= type_rows ? 2 : pos < 0 || pos >= position_rows ? 3 : 0;
  if (which != 0) {
    if (threadIdx.x == 0 && atomicCAS(&bad[0], 0, which) == 0) bad[1] = t;
    return;
  }
  const float* w = word + static_cast<std::int64_t>(id) * hidden;
  const float* ty = type_table + static_cast<std::int64_t>(type) * hidden;
  const float* p = position_table + static_cast<std::int64_t>(pos) * hidden;
  float* row = out + static_cast<std::int64_t>(t) * hidden;
  // Same order of additions as Hugging Face: (word + token type) + position.
  for (int h = threadIdx.x; h < hidden; h += blockDim.x) row[h] = (w[h] + ty[h]) + p[h];
}

}  // namespace

template <>
void embed_tokens<Device::CUDA>(const Tensor& ids, const Tensor& type_ids, const Tensor& positions,
                                const EmbeddingTables& tables, Tensor& out) {
  const std::int64_t tokens = ids.dim(0);
  if (tokens == 0) return;
  Tensor bad = Tensor::from_vector({2}, std::vector<std::int32_t>{0, 0}).to(Device::CUDA);
  embed<<<static_cast<unsigned>(tokens), cuda::kRowThreads>>>(
      ids.data<std::int32_t>(), type_ids.data<std::int32_t>(), positions.data<std::int32_t>(),
      tables.word.data<float>(), tables.word.dim(0), tables.token_type.data<float>(), tables.token_type.dim(0),
      tables.position.data<float>(), tables.position.dim(0), static_cast<int>(out.dim(1)), out.data<float>(),
      bad.data<std::int32_t>());
  cuda::check_launch("embed_tokens");
  std::vector<std::int32_t> found(2);
  cuda::check(cudaMemcpy(found.data(), bad.data<std::int32_t>(), sizeof(std::int32_t) * 2, cudaMemcpyDeviceToHost),
              "embed_tokens");
  if (found[0] != 0) {
    static const char* what[] = {"", "token id", "token type", "position"};
    throw Error(std::string("embed_tokens: token ") + std::to_string(found[1]) + "'s " + what[found[0]] +
                " is outside its table");
  }
}

}  // namespace geoalign::ops
