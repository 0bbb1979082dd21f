#include "model/bert_weights.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "geoalign/error.h"

namespace geoalign::model {

namespace {

constexpr const char* kPrefixes[] = {"bert.", "bert.text_encoder.", "text_encoder.", ""};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A LayerNorm's parameters under their Hugging Face or old TensorFlow names.
bool is_layer_norm(const std::string& name, const std::string& base) {
  return name == base + ".weight" || name == base + ".bias" || name == base + ".gamma" || name == base + ".beta";
}

bool is_linear(const std::string& name, const std::string& base) {
  return name == base + ".weight" || name == base + ".bias";
}

// The parameters of one BertLayer that geoalign runs (relative to encoder.layer.N.).
bool is_layer_parameter(const std::string& n) {
  return is_linear(n, "attention.self.query") || is_linear(n, "attention.self.key") ||
         is_linear(n, "attention.self.value") || is_linear(n, "attention.output.dense") ||
         is_layer_norm(n, "attention.output.LayerNorm") || is_linear(n, "intermediate.dense") ||
         is_linear(n, "output.dense") || is_layer_norm(n, "output.LayerNorm");
}

// MGeo's GisEmbeddings (gis_embedding != 0) beside the word, position and token type tables.
constexpr const char* kGisEmbeddings[] = {"rel_type_embeddings", "absolute_x_embeddings", "absolute_y_embeddings",
                                          "relative_x_embeddings", "relative_y_embeddings", "prov_embeddings",
                                          "city_embeddings",       "dist_embeddings"};
// MGeo's multi-modal backbone (finetune_mode 'multi-modal') beside its text encoder.
constexpr const char* kGisEncoder[] = {"gis_encoder.", "gis2text.", "gis_type."};

// Why a tensor under the encoder prefix (name relative to it) would change the numbers,
// or nothing when geoalign runs it or may leave it out.
std::optional<std::string> encoder_tensor_problem(const std::string& n, const BertConfig& config) {
  if (starts_with(n, "embeddings.")) {
    const std::string e = n.substr(11);
    if (e == "word_embeddings.weight" || e == "position_embeddings.weight" || e == "token_type_embeddings.weight" ||
        is_layer_norm(e, "LayerNorm") || e == "position_ids" || e == "token_type_ids") {
      return std::nullopt;
    }
    for (const char* gis : kGisEmbeddings) {
      if (starts_with(e, std::string(gis) + ".")) return "one of MGeo's GIS embeddings, which geoalign does not support";
    }
    return "an embedding geoalign does not know";
  }
  if (starts_with(n, "encoder.layer.")) {
    const std::string rest = n.substr(14);
    const auto dot = rest.find('.');
    std::int64_t layer = -1;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + (dot == std::string::npos ? rest.size() : dot), layer);
    if (ec != std::errc() || dot == std::string::npos || end != rest.data() + dot) {
      return "not a parameter of a numbered encoder layer";
    }
    const std::string sub = rest.substr(dot + 1);
    if (layer >= config.num_hidden_layers) {
      return "layer " + std::to_string(layer) + " is beyond config.json's num_hidden_layers " +
             std::to_string(config.num_hidden_layers);
    }
    if (layer >= config.fusion_layer) return std::nullopt;  // an MGeo fusion layer: not run in text mode
    if (is_layer_parameter(sub)) return std::nullopt;
    if (starts_with(sub, "crossattention.")) {
      return "cross-attention in layer " + std::to_string(layer) + ", below fusion_layer " +
             std::to_string(config.fusion_layer) + ": only MGeo's fusion layers have cross-attention";
    }
    return "a layer parameter geoalign does not know";
  }
  if (is_linear(n, "pooler.dense")) return std::nullopt;
  return "a tensor of the encoder geoalign does not know";
}

}  // namespace

void BertWeightReader::reject_unused(const BertConfig& config) const {
  // Offending tensors grouped by why, in the order the reasons first appear.
  std::vector<std::pair<std::string, std::vector<std::string>>> problems;
  std::size_t count = 0;
  // With no prefix (a bare BertModel) only the encoder's own names belong to it;
  // everything else is outside the encoder.
  const bool bare = prefix_.empty();
  // MGeo nests its text encoder one level down: (bert.)text_encoder. sits beside
  // (bert.)gis_encoder., gis2text. and gis_type. of its multi-modal backbone.
  const bool mgeo = ends_with(prefix_, "text_encoder.");
  // fusion_layer is MGeo's alone: a plain BERT whose config.json carries it would run fewer
  // layers than Hugging Face runs, and answer wrong without a word.
  if (config.fusion_layer < config.num_hidden_layers && !mgeo) {
    throw Error(file_.path().string() + ": config.json's fusion_layer " + std::to_string(config.fusion_layer) +
                " would run only the layers below it, as MGeo's text encoder does, but this checkpoint is not "
                "MGeo's (its encoder is not under text_encoder.): remove fusion_layer to run all " +
                std::to_string(config.num_hidden_layers) + " layers, as Hugging Face does");
  }
  const std::string parent = mgeo ? prefix_.substr(0, prefix_.size() - std::string("text_encoder.").size()) : std::string();
  for (const std::string& name : file_.names()) {
    std::optional<std::string> problem;
    if (starts_with(name, prefix_) &&
        (!bare || starts_with(name, "embeddings.") || starts_with(name, "encoder.") || starts_with(name, "pooler."))) {
      problem = encoder_tensor_problem(name.substr(prefix_.size()), config);
    } else if (starts_with(name, "classifier.")) {
      if (!is_linear(name, "classifier")) problem = "a classifier tensor geoalign does not know";
    } else if (mgeo && starts_with(name, parent)) {
      const std::string n = name.substr(parent.size());
      for (const char* part : kGisEncoder) {
        if (starts_with(n, part)) problem = "part of MGeo's multi-modal GIS encoder, which geoalign does not support";
      }
      if (!problem && !parent.empty()) problem = "a tensor of MGeo's backbone geoalign does not know";
    }
    if (!problem) continue;
    ++count;
    auto group = std::find_if(problems.begin(), problems.end(), [&](const auto& p) { return p.first == *problem; });
    if (group == problems.end()) group = problems.insert(problems.end(), {*problem, {}});
    group->second.push_back(name);
  }
  if (problems.empty()) return;
  constexpr std::size_t kShown = 4;  // names per reason
  std::string list;
  for (const auto& [why, names] : problems) {
    list += list.empty() ? "" : "; ";
    list += why + ": ";
    for (std::size_t i = 0; i < std::min(names.size(), kShown); ++i) list += (i ? ", \"" : "\"") + names[i] + "\"";
    if (names.size() > kShown) list += " and " + std::to_string(names.size() - kShown) + " more";
  }
  throw Error(file_.path().string() + ": " + std::to_string(count) + (count == 1 ? " tensor" : " tensors") +
              " would change what this checkpoint's model computes, but geoalign does not run " +
              (count == 1 ? "it" : "them") + ": " + list);
}

BertWeightReader::BertWeightReader(const SafetensorsFile& file) : file_(file) {
  for (const char* prefix : kPrefixes) {
    if (file.contains(std::string(prefix) + "embeddings.word_embeddings.weight")) {
      prefix_ = prefix;
      return;
    }
  }
  throw Error(file.path().string() +
              ": no BERT encoder found: expected a tensor named embeddings.word_embeddings.weight under one of "
              "the prefixes \"bert.\", \"bert.text_encoder.\", \"text_encoder.\" or none");
}

std::optional<std::string> BertWeightReader::resolve(const std::string& full_name) const {
  if (file_.contains(full_name)) return full_name;
  // Old TensorFlow-converted checkpoints name LayerNorm parameters gamma and beta.
  if (ends_with(full_name, "LayerNorm.weight")) {
    const std::string alt = full_name.substr(0, full_name.size() - 6) + "gamma";
    if (file_.contains(alt)) return alt;
  }
  if (ends_with(full_name, "LayerNorm.bias")) {
    const std::string alt = full_name.substr(0, full_name.size() - 4) + "beta";
    if (file_.contains(alt)) return alt;
  }
  return std::nullopt;
}

Tensor BertWeightReader::load(const std::string& full_name, const Shape& shape) const {
  const auto name = resolve(full_name);
  if (!name) throw Error(file_.path().string() + ": missing tensor \"" + full_name + "\"");
  const TensorEntry& entry = file_.entry(*name);
  if (entry.shape != shape) {
    throw Error(file_.path().string() + ": tensor \"" + *name + "\" has shape " + shape_to_string(entry.shape) +
                ", but config.json implies " + shape_to_string(shape));
  }
  return file_.load_f32(*name);
}

Tensor BertWeightReader::encoder(const std::string& name, const Shape& shape) const { return load(prefix_ + name, shape); }
bool BertWeightReader::has_encoder(const std::string& name) const { return resolve(prefix_ + name).has_value(); }
Tensor BertWeightReader::head(const std::string& name, const Shape& shape) const { return load(name, shape); }
bool BertWeightReader::has_head(const std::string& name) const { return resolve(name).has_value(); }

}  // namespace geoalign::model
