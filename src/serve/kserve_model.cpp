#include "serve/kserve_model.h"

#include <nlohmann/json.hpp>

namespace geoalign::serve {

namespace {

using nlohmann::json;

// A tensor of one pair; the batch dimension comes first in every tensor.
struct Tensor {
  const char* name;
  const char* datatype;      // KServe's: BYTES, FP32
  std::vector<int> dims;     // per pair, without the batch dimension; empty: a scalar
};

const std::vector<Tensor> kInputs = {{"addr1", "BYTES", {}}, {"addr2", "BYTES", {}}};
const std::vector<Tensor> kOutputs = {{"label", "BYTES", {}}, {"score", "FP32", {}}, {"probabilities", "FP32", {3}}};

json metadata(const std::vector<Tensor>& tensors) {
  json out = json::array();
  for (const Tensor& t : tensors) {
    json shape = {-1};
    for (int d : t.dims) shape.push_back(d);
    out.push_back({{"name", t.name}, {"datatype", t.datatype}, {"shape", shape}});
  }
  return out;
}

// Triton spells BYTES as TYPE_STRING. A scalar per pair is dims [1] reshaped to [], as
// Triton describes a batched model whose tensors have no dimension beyond the batch.
json config(const std::vector<Tensor>& tensors) {
  json out = json::array();
  for (const Tensor& t : tensors) {
    const std::string type = std::string(t.datatype) == "BYTES" ? "TYPE_STRING" : "TYPE_" + std::string(t.datatype);
    json tensor = {{"name", t.name}, {"data_type", type}, {"dims", t.dims.empty() ? json{1} : json(t.dims)}};
    if (t.dims.empty()) tensor["reshape"] = {{"shape", json::array()}};
    out.push_back(std::move(tensor));
  }
  return out;
}

}  // namespace

std::string render_server_metadata() {
  return json{{"name", "geoalign"}, {"version", "0.1.0"}, {"extensions", {"binary_tensor_data"}}}.dump();
}

std::string render_model_metadata(std::string_view model_name, const std::vector<std::string>& labels,
                                  std::size_t embedding_dim) {
  return json{{"name", model_name},
              {"versions", {"1"}},
              {"platform", "geoalign"},
              {"labels", labels},
              {"embedding_dimension", embedding_dim},
              {"inputs", metadata(kInputs)},
              {"outputs", metadata(kOutputs)}}
      .dump();
}

std::string render_model_config(std::string_view model_name, std::size_t max_batch_size,
                                std::chrono::microseconds max_queue_delay) {
  return json{{"name", model_name},
              {"platform", "geoalign"},
              {"backend", "geoalign"},
              {"max_batch_size", max_batch_size},
              {"input", config(kInputs)},
              {"output", config(kOutputs)},
              {"dynamic_batching", {{"max_queue_delay_microseconds", max_queue_delay.count()}}}}
      .dump();
}

}  // namespace geoalign::serve
