#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace geoalign::serve {

// The model as KServe v2 and Triton clients see it. Both documents below come from one
// table of tensors, so the metadata and the configuration cannot disagree.

// GET /v2: the server's name, version and protocol extensions.
std::string render_server_metadata();
// GET /v2/models/geoalign.
std::string render_model_metadata(const std::vector<std::string>& labels, std::size_t embedding_dim);
// GET /v2/models/geoalign/config: a Triton model configuration (its JSON form).
std::string render_model_config(std::size_t max_batch_size, std::chrono::microseconds max_queue_delay);

}  // namespace geoalign::serve
