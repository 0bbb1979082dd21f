#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/tensor.h"
#include "model/config.h"
#include "model/safetensors.h"

namespace geoalign::model {

// Finds Hugging Face BERT parameters in a checkpoint, whatever prefix the encoder was
// saved under ("bert." for BertForSequenceClassification, "bert.text_encoder." for
// MGeo, none for a bare BertModel), and checks every shape on the way in.
class BertWeightReader {
 public:
  explicit BertWeightReader(const SafetensorsFile& file);

  // An encoder parameter, e.g. "encoder.layer.0.attention.self.query.weight".
  Tensor encoder(const std::string& name, const Shape& shape) const;
  bool has_encoder(const std::string& name) const;
  // A parameter outside the encoder, e.g. "classifier.weight".
  Tensor head(const std::string& name, const Shape& shape) const;
  bool has_head(const std::string& name) const;

  const std::string& prefix() const { return prefix_; }

  // Throws, naming the file and the tensors, when the checkpoint holds a tensor that
  // would take part in its own model's forward pass but that geoalign does not run, so
  // geoalign would silently compute other numbers: an unknown tensor in the encoder
  // (under the prefix: embeddings, encoder.layer.N below fusion_layer, pooler), MGeo's
  // GIS embeddings or multi-modal GIS encoder, cross-attention in a layer below
  // fusion_layer, a layer beyond num_hidden_layers, an unknown classifier tensor.
  // Not rejected: the layers from fusion_layer on (MGeo's fusion layers, which its text
  // classifier does not run), the position_ids/token_type_ids buffers, and tensors
  // outside the encoder and classifier such as the cls.* pretraining heads.
  void reject_unused(const BertConfig& config) const;

 private:
  std::optional<std::string> resolve(const std::string& full_name) const;
  Tensor load(const std::string& full_name, const Shape& shape) const;

  const SafetensorsFile& file_;
  std::string prefix_;
};

}  // namespace geoalign::model
