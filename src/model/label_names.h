#pragma once

#include <string_view>

namespace geoalign::model {

// The three classes as people and checkpoints name them, in English or Chinese (MGeo's
// folders and CCKS files use 完全匹配 / 部分匹配 / 不匹配): 0 not_match, 1 partial_match,
// 2 exact_match; -1 for any other name. One list, read by model folders, eval and dedup.
inline int class_of_label_name(std::string_view name) {
  if (name == "not_match" || name == "不匹配") return 0;
  if (name == "partial_match" || name == "部分匹配") return 1;
  if (name == "exact_match" || name == "完全匹配") return 2;
  return -1;
}

}  // namespace geoalign::model
