#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/ops/linear.h"
#include "text/normalize.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::model {

// The BertConfig fields geoalign uses, with Hugging Face's defaults.
struct BertConfig {
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  std::int64_t num_hidden_layers = 0;
  std::int64_t num_attention_heads = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t max_position_embeddings = 512;
  std::int64_t type_vocab_size = 2;
  // MGeo's fusion_layer: its text encoder runs layers [0, fusion_layer) only; the layers
  // from fusion_layer on are its cross-attention (fusion) layers and are not run. Equal
  // to num_hidden_layers when config.json has no fusion_layer (a plain BERT).
  std::int64_t fusion_layer = 0;
  float layer_norm_eps = 1e-12f;
  ops::Activation hidden_act = ops::Activation::Gelu;
  std::vector<std::string> labels;  // id2label, in id order
};

// geoalign's own settings, read from the "geoalign" key of config.json when present.
struct GeoalignSettings {
  text::NormalizeOptions normalize;  // all off unless the folder asks
  std::size_t max_length = 128;      // the length MGeo was trained with
};

struct ModelConfig {
  BertConfig bert;
  GeoalignSettings settings;
  text::TokenizerOptions tokenizer;  // from tokenizer_config.json, else BertTokenizer defaults
};

// Reads config.json (required) and tokenizer_config.json (optional) from a model folder.
ModelConfig load_model_config(const std::filesystem::path& model_dir);

}  // namespace geoalign::model
