#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace geoalign::serve {

// The model as KServe v2 and Triton clients see it. Both documents below come from one
// table of tensors, so the metadata and the configuration cannot disagree.

// GET /v2: the server's name, version and protocol extensions.
std::string render_server_metadata();
// GET /v2/models/NAME.
std::string render_model_metadata(std::string_view model_name, const std::vector<std::string>& labels,
                                  std::size_t embedding_dim);
// GET /v2/models/NAME/config: a Triton model configuration (its JSON form).
std::string render_model_config(std::string_view model_name, std::size_t max_batch_size,
                                std::chrono::microseconds max_queue_delay);

}  // namespace geoalign::serve
