#pragma once

#include <optional>
#include <vector>

#include "backend/ops/linear.h"
#include "backend/ops/pooling.h"
#include "backend/tensor.h"
#include "model/bert_weights.h"
#include "model/config.h"
#include "model/stage_timer.h"
#include "runtime/token_batch.h"

namespace geoalign::model {

// BERT's encoder with its optional pooler and classifier, written against the ops
// interface only, so any backend that implements the ops runs it unchanged.
class BertModel {
 public:
  // Activations reused from batch to batch; one per concurrent caller.
  struct Workspace {
    Tensor hidden, qkv, context, projected, intermediate, pooled, logits;
    // The batch's token ids, types and positions, copied here when the model is not on the
    // host (the batch is packed there).
    Tensor input_ids, token_type_ids, position_ids;
  };

  // The encoder's linear layers multiply in `precision`; the pooler and classifier,
  // a sliver of the work, stay fp32. Weights go to `device`, where every op then runs.
  static BertModel load(const BertWeightReader& weights, const BertConfig& config,
                        ops::MatmulPrecision precision = ops::MatmulPrecision::FP32, Device device = Device::CPU);

  // Final hidden states [tokens, hidden], on the model's device; the result lives in the
  // workspace.
  // A timer, when given, receives the time of every stage (embeddings, each layer's
  // attention and FFN, the head).
  const Tensor& encode(const runtime::TokenBatch& batch, Workspace& ws, StageTimer* timer = nullptr) const;
  // Class probabilities [sequences, labels], on the model's device.
  void classify(const runtime::TokenBatch& batch, Workspace& ws, Tensor& probabilities,
                StageTimer* timer = nullptr) const;

  bool can_classify() const { return pooler_.has_value() && classifier_.has_value(); }
  const BertConfig& config() const { return config_; }
  Device device() const { return device_; }

 private:
  struct Layer {
    ops::Linear qkv, attention_output;
    Tensor attention_norm_gamma, attention_norm_beta;
    ops::Linear intermediate, output;
    Tensor output_norm_gamma, output_norm_beta;
  };

  BertConfig config_;
  Device device_ = Device::CPU;
  Tensor word_embeddings_, position_embeddings_, token_type_embeddings_;
  Tensor embedding_norm_gamma_, embedding_norm_beta_;
  std::vector<Layer> layers_;
  std::optional<ops::Linear> pooler_, classifier_;
};

}  // namespace geoalign::model
