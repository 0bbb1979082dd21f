#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/temp_dir.h"

namespace geoalign::testing {

// A match or rerank head file's JSON with the encoder's `labels` probabilities added to
// its inputs (after the pair features, before order_swapped) and no tree reading them:
// the same answers, from a head that makes the scorer run the encoder (the shipped heads
// read the pair features alone).
inline nlohmann::json with_encoder_inputs(nlohmann::json head, std::size_t labels = 3) {
  auto& names = head["features"];
  const bool ordered_input = !names.empty() && names.back() == "order_swapped";
  const std::size_t at = names.size() - (ordered_input ? 1 : 0);
  for (std::size_t k = 0; k < labels; ++k) names.insert(names.begin() + static_cast<std::ptrdiff_t>(at + k), "encoder_p" + std::to_string(k));
  for (auto& tree : head["trees"]) {
    for (auto& node : tree["nodes"]) {
      const int feature = node[0].get<int>();
      if (feature >= static_cast<int>(at)) node[0] = feature + static_cast<int>(labels);
    }
  }
  return head;
}

// A folder of links to models/default's files whose `head_file` reads the encoder too.
inline std::filesystem::path default_model_whose_head_reads_the_encoder(const TempDir& dir, const std::string& head_file) {
  const auto model = linked_model(dir, source_dir() / "models/default");
  const auto head = nlohmann::json::parse(read_file(source_dir() / "models/default" / head_file));
  std::filesystem::remove(model / head_file);
  write_file(model / head_file, with_encoder_inputs(head).dump());
  return model;
}

}  // namespace geoalign::testing
