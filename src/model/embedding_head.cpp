#include "model/embedding_head.h"

#include <algorithm>

#include "backend/ops/concat.h"
#include "backend/ops/normalize.h"
#include "geoalign/error.h"
#include "model/json_file.h"
#include "model/safetensors.h"

namespace geoalign::model {

namespace {

constexpr const char* kModulePrefix = "sentence_transformers.models.";

std::vector<ops::Pooling> read_pooling(const std::filesystem::path& dir, std::int64_t hidden_size) {
  const auto path = dir / "config.json";
  const nlohmann::json j = read_json_file(path);
  const JsonFields config(j, path.string());
  // sentence-transformers concatenates the enabled modes in this order.
  std::vector<ops::Pooling> poolings;
  if (config.boolean("pooling_mode_cls_token", false)) poolings.push_back(ops::Pooling::Cls);
  for (const char* unsupported : {"pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                                  "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"}) {
    if (config.boolean(unsupported, false)) {
      throw Error(path.string() + ": " + unsupported + " is not supported (cls_token and mean_tokens are)");
    }
  }
  if (config.boolean("pooling_mode_mean_tokens", false)) poolings.push_back(ops::Pooling::Mean);
  if (poolings.empty()) throw Error(path.string() + ": no pooling mode is enabled");
  const std::int64_t width = config.integer("word_embedding_dimension", hidden_size);
  if (width != hidden_size) {
    throw Error(path.string() + ": word_embedding_dimension " + std::to_string(width) +
                " differs from the encoder's hidden_size " + std::to_string(hidden_size));
  }
  return poolings;
}

ops::Activation dense_activation(const std::string& name, const std::string& where) {
  // sentence-transformers stores the activation as the class's import path.
  if (name == "torch.nn.modules.linear.Identity") return ops::Activation::None;
  if (name == "torch.nn.modules.activation.Tanh") return ops::Activation::Tanh;
  if (name == "torch.nn.modules.activation.ReLU") return ops::Activation::Relu;
  if (name == "torch.nn.modules.activation.GELU") return ops::Activation::Gelu;
  throw Error(where + ": activation_function \"" + name + "\" is not supported (Identity, Tanh, ReLU, GELU)");
}

ops::Linear read_dense(const std::filesystem::path& dir, std::int64_t in_features, Device device) {
  const auto config_path = dir / "config.json";
  const nlohmann::json j = read_json_file(config_path);
  const JsonFields config(j, config_path.string());
  const std::int64_t in = config.integer("in_features");
  const std::int64_t out = config.integer("out_features");
  if (in != in_features) {
    throw Error(config_path.string() + ": in_features " + std::to_string(in) + " does not follow the previous module's " +
                std::to_string(in_features) + " outputs");
  }
  if (out <= 0) throw Error(config_path.string() + ": out_features must be positive");
  const ops::Activation activation = dense_activation(
      config.string("activation_function", "torch.nn.modules.activation.Tanh"), config_path.string());

  const auto weights_path = dir / "model.safetensors";
  if (!std::filesystem::exists(weights_path)) {
    throw Error(dir.string() + " has no model.safetensors" +
                (std::filesystem::exists(dir / "pytorch_model.bin")
                     ? std::string(" (it has pytorch_model.bin: convert it with tools/convert_to_safetensors.py)")
                     : std::string()));
  }
  const SafetensorsFile weights = SafetensorsFile::open(weights_path);
  auto tensor = [&](const std::string& name, const Shape& shape) {
    if (!weights.contains(name)) throw Error(weights_path.string() + ": no tensor " + name);
    Tensor t = weights.load_f32(name);
    if (t.shape() != shape) throw Error(weights_path.string() + ": " + name + " has the wrong shape");
    return t;
  };
  Tensor bias({out});
  if (config.boolean("bias", true)) {
    bias = tensor("linear.bias", {out});
  } else {
    std::fill(bias.data<float>(), bias.data<float>() + out, 0.0f);
  }
  // fp32 always: one small GEMM per address, where rounding would move cosine rankings.
  return ops::Linear(tensor("linear.weight", {out, in}).to(device), bias.to(device), activation);
}

}  // namespace

EmbeddingHead EmbeddingHead::pooling_only(ops::Pooling pooling, std::int64_t hidden_size) {
  EmbeddingHead head;
  head.poolings_ = {pooling};
  head.hidden_size_ = hidden_size;
  return head;
}

EmbeddingHead EmbeddingHead::load(const std::filesystem::path& model_dir, std::int64_t hidden_size, Device device) {
  const auto modules_path = model_dir / kModulesFile;
  if (!std::filesystem::exists(modules_path)) return pooling_only(ops::Pooling::Mean, hidden_size);
  const nlohmann::json modules = read_json_file(modules_path);
  const std::string where = modules_path.string();
  if (!modules.is_array() || modules.empty()) throw Error(where + ": expected a non-empty array of modules");

  EmbeddingHead head;
  head.hidden_size_ = hidden_size;
  std::int64_t width = hidden_size;
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const std::string item = where + ": module " + std::to_string(i);
    if (!modules[i].is_object()) throw Error(item + " is not an object");
    const JsonFields module(modules[i], item);
    const std::string type = module.string("type", "");
    const std::string kind = type.rfind(kModulePrefix, 0) == 0 ? type.substr(std::string(kModulePrefix).size()) : type;
    const std::filesystem::path dir = model_dir / module.string("path", "");
    const bool first = i == 0, pooled = !head.poolings_.empty();
    if (kind == "Transformer" && first) continue;
    if (kind == "Pooling" && !pooled && i == 1) {
      head.poolings_ = read_pooling(dir, hidden_size);
      width = hidden_size * static_cast<std::int64_t>(head.poolings_.size());
    } else if (kind == "Dense" && pooled && !head.normalize_) {
      head.dense_.push_back(read_dense(dir, width, device));
      width = head.dense_.back().out_features();
    } else if (kind == "Normalize" && pooled && !head.normalize_) {
      head.normalize_ = true;
    } else {
      throw Error(item + ": \"" + type + "\" is not supported here (geoalign reads Transformer, then Pooling, " +
                  "then any Dense, then an optional Normalize)");
    }
  }
  if (head.poolings_.empty()) throw Error(where + ": no Pooling module");
  return head;
}

void EmbeddingHead::operator()(const Tensor& hidden, std::span<const std::int32_t> cu_seqlens, Tensor& vectors) const {
  Tensor pooled;
  if (poolings_.size() == 1) {
    ops::pool(hidden, cu_seqlens, poolings_[0], pooled);
  } else {
    std::vector<Tensor> parts(poolings_.size());
    for (std::size_t p = 0; p < poolings_.size(); ++p) ops::pool(hidden, cu_seqlens, poolings_[p], parts[p]);
    ops::concat_columns(parts, pooled);
  }
  for (const ops::Linear& dense : dense_) {
    Tensor next;
    dense(pooled, next);
    pooled = std::move(next);
  }
  if (normalize_) ops::l2_normalize_rows(pooled);
  vectors = std::move(pooled);
}

std::int64_t EmbeddingHead::dimension() const {
  return dense_.empty() ? hidden_size_ * static_cast<std::int64_t>(poolings_.size()) : dense_.back().out_features();
}

std::string EmbeddingHead::description() const {
  std::string out;
  for (const ops::Pooling p : poolings_) out += std::string(out.empty() ? "" : "+") + (p == ops::Pooling::Cls ? "cls" : "mean");
  out += " pooling";
  std::int64_t width = hidden_size_ * static_cast<std::int64_t>(poolings_.size());
  for (const ops::Linear& dense : dense_) {
    out += ", dense " + std::to_string(width) + "->" + std::to_string(dense.out_features());
    width = dense.out_features();
  }
  if (normalize_) out += ", L2 normalized";
  return out;
}

}  // namespace geoalign::model
