#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "backend/ops/linear.h"
#include "backend/ops/pooling.h"
#include "backend/tensor.h"

namespace geoalign::model {

// How an address's final token states become its embedding, as sentence-transformers
// defines it in a model folder: modules.json names a pooling (1_Pooling/config.json),
// then any dense layers (N_Dense/config.json + model.safetensors), then optional L2
// normalization. A folder without modules.json embeds by mean pooling alone.
class EmbeddingHead {
 public:
  static constexpr const char* kModulesFile = "modules.json";

  // Throws Error naming the file for an unsupported module, pooling mode or activation,
  // or for shapes that do not chain from the encoder's hidden size.
  // Dense layers go to `device`, beside the encoder whose hidden states they read.
  static EmbeddingHead load(const std::filesystem::path& model_dir, std::int64_t hidden_size,
                            Device device = Device::CPU);
  // Only the pooled states, without the folder's layers.
  static EmbeddingHead pooling_only(ops::Pooling pooling, std::int64_t hidden_size);

  // hidden: [tokens, hidden_size] of a padding-free batch; vectors: [sequences, dimension()].
  void operator()(const Tensor& hidden, std::span<const std::int32_t> cu_seqlens, Tensor& vectors) const;

  std::int64_t dimension() const;
  // For logs and metadata: "mean pooling, dense 256->256, L2 normalized".
  std::string description() const;

 private:
  std::vector<ops::Pooling> poolings_;  // concatenated in this order
  std::vector<ops::Linear> dense_;
  bool normalize_ = false;
  std::int64_t hidden_size_ = 0;
};

}  // namespace geoalign::model
