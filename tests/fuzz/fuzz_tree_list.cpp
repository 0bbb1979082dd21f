// libFuzzer: arbitrary bytes as a head file's text. Where read_tree_list takes the trees
// and nlohmann parses the same text, its trees must be exactly what the general route
// builds from the document; where it declines, it must leave nothing behind.
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "geoalign/error.h"
#include "match/gbdt.h"
#include "match/tree_list_reader.h"

namespace {

using geoalign::match::GradientBoostedTrees;

bool same(const GradientBoostedTrees::FileNode& a, const GradientBoostedTrees::FileNode& b) {
  return a.feature == b.feature && a.left == b.left && a.right == b.right &&
         std::bit_cast<std::uint32_t>(a.threshold) == std::bit_cast<std::uint32_t>(b.threshold) &&
         std::bit_cast<std::uint32_t>(a.value) == std::bit_cast<std::uint32_t>(b.value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<GradientBoostedTrees::FileTree> fast;
  const auto span = geoalign::match::read_tree_list(text, fast);
  if (!span) {
    if (!fast.empty()) std::abort();
    return 0;
  }
  if (span->begin >= span->end || span->end > size || text[span->begin] != '[' || text[span->end - 1] != ']') {
    std::abort();
  }
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return 0;  // read_file then takes the general route, which reports the error
  }
  std::vector<GradientBoostedTrees::FileTree> general;
  try {
    general = GradientBoostedTrees::trees_of(document, "fuzz");
  } catch (const geoalign::Error&) {
    std::abort();  // the fast reader took trees the general route rejects
  }
  if (general.size() != fast.size()) std::abort();
  for (std::size_t t = 0; t < fast.size(); ++t) {
    if (general[t].output_class != fast[t].output_class || general[t].nodes.size() != fast[t].nodes.size()) std::abort();
    for (std::size_t n = 0; n < fast[t].nodes.size(); ++n) {
      if (!same(general[t].nodes[n], fast[t].nodes[n])) std::abort();
    }
  }
  return 0;
}
