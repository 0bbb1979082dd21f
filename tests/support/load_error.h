#pragma once

#include <filesystem>
#include <string>

#include "geoalign/error.h"
#include "model/model_folder.h"

namespace geoalign::testing {

// The message a model folder fails to load with, or "" when it loads.
inline std::string load_error(const std::filesystem::path& folder) {
  try {
    model::ModelFolder::load(folder);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace geoalign::testing
