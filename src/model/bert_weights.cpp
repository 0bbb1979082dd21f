#include "model/bert_weights.h"

#include "geoalign/error.h"

namespace geoalign::model {

namespace {

constexpr const char* kPrefixes[] = {"bert.", "bert.text_encoder.", "text_encoder.", ""};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

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
