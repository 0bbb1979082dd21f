#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/tensor.h"
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

 private:
  std::optional<std::string> resolve(const std::string& full_name) const;
  Tensor load(const std::string& full_name, const Shape& shape) const;

  const SafetensorsFile& file_;
  std::string prefix_;
};

}  // namespace geoalign::model
