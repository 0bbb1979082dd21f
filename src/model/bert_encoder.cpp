#include "model/bert_encoder.h"

#include <cstring>

#include "backend/ops/attention.h"
#include "backend/ops/embedding.h"
#include "backend/ops/layer_norm.h"
#include "backend/ops/softmax.h"

namespace geoalign::model {

namespace {

// Stacks the query, key and value projections into one [3 * hidden, hidden] GEMM.
std::pair<Tensor, Tensor> fused_qkv(const BertWeightReader& w, const std::string& layer, std::int64_t hidden) {
  Tensor weight({3 * hidden, hidden});
  Tensor bias({3 * hidden});
  const char* parts[] = {"query", "key", "value"};
  for (std::int64_t i = 0; i < 3; ++i) {
    const std::string base = layer + "attention.self." + parts[i];
    const Tensor pw = w.encoder(base + ".weight", {hidden, hidden});
    const Tensor pb = w.encoder(base + ".bias", {hidden});
    std::memcpy(weight.data<float>() + i * hidden * hidden, pw.data<float>(), sizeof(float) * hidden * hidden);
    std::memcpy(bias.data<float>() + i * hidden, pb.data<float>(), sizeof(float) * hidden);
  }
  return {std::move(weight), std::move(bias)};
}

}  // namespace

BertModel BertModel::load(const BertWeightReader& reader, const BertConfig& config, ops::MatmulPrecision precision,
                          Device device) {
  const std::int64_t hidden = config.hidden_size;
  const std::int64_t inner = config.intermediate_size;
  reader.reject_unused(config);
  // Weights are read (and Q, K, V fused) on the host, then placed on the device.
  auto place = [device](Tensor t) -> Tensor {
    if (device == Device::CPU) return t;
    return t.to(device);
  };
  struct Placed {
    const BertWeightReader& reader;
    decltype(place) to_device;
    Tensor encoder(const std::string& name, const Shape& shape) const { return to_device(reader.encoder(name, shape)); }
    Tensor head(const std::string& name, const Shape& shape) const { return to_device(reader.head(name, shape)); }
  } w{reader, place};
  BertModel m;
  m.config_ = config;
  m.device_ = device;
  m.word_embeddings_ = w.encoder("embeddings.word_embeddings.weight", {config.vocab_size, hidden});
  m.position_embeddings_ = w.encoder("embeddings.position_embeddings.weight", {config.max_position_embeddings, hidden});
  m.token_type_embeddings_ = w.encoder("embeddings.token_type_embeddings.weight", {config.type_vocab_size, hidden});
  m.embedding_norm_gamma_ = w.encoder("embeddings.LayerNorm.weight", {hidden});
  m.embedding_norm_beta_ = w.encoder("embeddings.LayerNorm.bias", {hidden});

  // Layers [0, fusion_layer): all of a plain BERT, MGeo's text layers (its fusion layers
  // above them are not run by its text classifier, so they are not loaded).
  for (std::int64_t l = 0; l < config.fusion_layer; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    auto [qkv_weight, qkv_bias] = fused_qkv(reader, p, hidden);
    m.layers_.push_back(Layer{
        ops::Linear(place(std::move(qkv_weight)), place(std::move(qkv_bias)), ops::Activation::None, precision),
        ops::Linear(w.encoder(p + "attention.output.dense.weight", {hidden, hidden}),
                    w.encoder(p + "attention.output.dense.bias", {hidden}), ops::Activation::None, precision),
        w.encoder(p + "attention.output.LayerNorm.weight", {hidden}),
        w.encoder(p + "attention.output.LayerNorm.bias", {hidden}),
        ops::Linear(w.encoder(p + "intermediate.dense.weight", {inner, hidden}),
                    w.encoder(p + "intermediate.dense.bias", {inner}), config.hidden_act, precision),
        ops::Linear(w.encoder(p + "output.dense.weight", {hidden, inner}), w.encoder(p + "output.dense.bias", {hidden}),
                    ops::Activation::None, precision),
        w.encoder(p + "output.LayerNorm.weight", {hidden}),
        w.encoder(p + "output.LayerNorm.bias", {hidden}),
    });
  }

  if (reader.has_encoder("pooler.dense.weight")) {
    m.pooler_.emplace(w.encoder("pooler.dense.weight", {hidden, hidden}), w.encoder("pooler.dense.bias", {hidden}),
                      ops::Activation::Tanh);
  }
  if (reader.has_head("classifier.weight")) {
    const auto labels = static_cast<std::int64_t>(config.labels.size());
    m.classifier_.emplace(w.head("classifier.weight", {labels, hidden}), w.head("classifier.bias", {labels}));
  }
  return m;
}

const Tensor& BertModel::encode(const runtime::TokenBatch& batch, Workspace& ws, StageTimer* timer) const {
  const float eps = config_.layer_norm_eps;
  {
    ScopedStage stage(timer, "embeddings");
    const Tensor* ids = &batch.input_ids;
    const Tensor* types = &batch.token_type_ids;
    const Tensor* positions = &batch.position_ids;
    if (device_ != Device::CPU) {
      ws.input_ids = batch.input_ids.to(device_);
      ws.token_type_ids = batch.token_type_ids.to(device_);
      ws.position_ids = batch.position_ids.to(device_);
      ids = &ws.input_ids;
      types = &ws.token_type_ids;
      positions = &ws.position_ids;
    }
    ops::embed_tokens(*ids, *types, *positions, {word_embeddings_, position_embeddings_, token_type_embeddings_},
                      ws.hidden);
    ops::layer_norm(ws.hidden, nullptr, embedding_norm_gamma_, embedding_norm_beta_, eps, ws.hidden);
  }
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    const std::string name = timer ? "layer " + std::to_string(l) : std::string();
    {
      ScopedStage stage(timer, name + " attention");
      ops::self_attention(layer.qkv, layer.attention_output, ws.hidden, batch.cu_seqlens, config_.num_attention_heads,
                          ws.qkv, ws.context, ws.projected);
      ops::layer_norm(ws.projected, &ws.hidden, layer.attention_norm_gamma, layer.attention_norm_beta, eps, ws.hidden);
    }
    {
      ScopedStage stage(timer, name + " ffn");
      ops::chain(layer.intermediate, layer.output, ws.hidden, ws.intermediate, ws.projected);
      ops::layer_norm(ws.projected, &ws.hidden, layer.output_norm_gamma, layer.output_norm_beta, eps, ws.hidden);
    }
  }
  return ws.hidden;
}

void BertModel::classify(const runtime::TokenBatch& batch, Workspace& ws, Tensor& probabilities,
                         StageTimer* timer) const {
  if (!can_classify()) {
    throw Error("this model has no classification head (pooler.dense and classifier tensors); it can only embed");
  }
  const Tensor& hidden = encode(batch, ws, timer);
  ScopedStage stage(timer, "head");
  ops::pool(hidden, batch.cu_seqlens, ops::Pooling::Cls, ws.context);
  (*pooler_)(ws.context, ws.pooled);
  (*classifier_)(ws.pooled, ws.logits);
  ops::softmax(ws.logits, probabilities);
}

}  // namespace geoalign::model
