#include "index/hnsw_checks.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "geoalign/error.h"

namespace geoalign::index {

namespace {

using hnswlib::labeltype;
using hnswlib::linklistsizeint;
using hnswlib::tableint;

// Layers a graph may have: a node's layer is -ln(U) / ln(M), about 7 for M = 16 even at
// a billion nodes; anything near this is not a graph hnswlib built.
constexpr int kMaxLayer = 64;
constexpr std::size_t kMaxLinks = 10000;  // hnswlib's own cap on M

// The header saveIndex writes, field by field.
struct GraphHeader {
  std::size_t offset_level0, max_elements, elements, bytes_per_element, label_offset, data_offset;
  int max_layer;
  tableint entry_point;
  std::size_t max_links, max_links0, links;
  double mult;
  std::size_t build_candidates;
};

template <typename T>
void read_field(std::ifstream& in, T& value, const std::string& where) {
  if (!in.read(reinterpret_cast<char*>(&value), sizeof value)) throw Error(where + ": truncated graph header");
}

GraphHeader read_header(std::ifstream& in, const std::string& where) {
  GraphHeader h{};
  read_field(in, h.offset_level0, where);
  read_field(in, h.max_elements, where);
  read_field(in, h.elements, where);
  read_field(in, h.bytes_per_element, where);
  read_field(in, h.label_offset, where);
  read_field(in, h.data_offset, where);
  read_field(in, h.max_layer, where);
  read_field(in, h.entry_point, where);
  read_field(in, h.max_links, where);
  read_field(in, h.max_links0, where);
  read_field(in, h.links, where);
  read_field(in, h.mult, where);
  read_field(in, h.build_candidates, where);
  return h;
}

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw Error(where + ": not a graph this build can read (" + why + ")");
}

}  // namespace

void check_graph_file(const std::filesystem::path& file, std::size_t dim, std::size_t records) {
  const std::string where = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(where + ": cannot open");
  const GraphHeader h = read_header(in, where);
  if (h.elements != records) {
    throw Error(where + ": holds " + std::to_string(h.elements) + " vectors, the index has " + std::to_string(records) +
                " records");
  }
  if (h.offset_level0 != 0) bad(where, "the bottom layer is not first");
  if (h.links < 1 || h.links > kMaxLinks || h.max_links != h.links || h.max_links0 != 2 * h.links) {
    bad(where, "link counts " + std::to_string(h.links) + "/" + std::to_string(h.max_links) + "/" +
                   std::to_string(h.max_links0));
  }
  const std::size_t links0_bytes = h.max_links0 * sizeof(tableint) + sizeof(linklistsizeint);
  if (h.data_offset != links0_bytes || h.label_offset != links0_bytes + dim * sizeof(float) ||
      h.bytes_per_element != h.label_offset + sizeof(labeltype)) {
    // hnswlib sizes each vector by the space it is given, not by the file: compare.
    if (h.bytes_per_element > links0_bytes + sizeof(labeltype) && h.data_offset == links0_bytes) {
      throw Error(where + ": holds vectors of " +
                  std::to_string((h.bytes_per_element - links0_bytes - sizeof(labeltype)) / sizeof(float)) +
                  " dimensions, the index says " + std::to_string(dim));
    }
    bad(where, "node layout");
  }
  if (!(std::isfinite(h.mult) && h.mult > 0)) bad(where, "layer factor");
  const bool empty = h.elements == 0;
  if (empty ? h.max_layer != -1 : (h.max_layer < 0 || h.max_layer > kMaxLayer || h.entry_point >= h.elements)) {
    bad(where, "entry point " + std::to_string(h.entry_point) + " on layer " + std::to_string(h.max_layer));
  }
  // The bottom layer, then one upper-layer link block per node: sized as the header says,
  // and nothing after them.
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  const auto header_end = static_cast<std::uint64_t>(sizeof(std::size_t) * 6 + sizeof(int) + sizeof(tableint) +
                                                     sizeof(std::size_t) * 3 + sizeof(double) + sizeof(std::size_t));
  if (h.elements > (file_size - header_end) / h.bytes_per_element) bad(where, "shorter than its nodes");
  std::uint64_t at = header_end + h.elements * h.bytes_per_element;
  const std::size_t upper_bytes = h.max_links * sizeof(tableint) + sizeof(linklistsizeint);
  in.seekg(static_cast<std::streamoff>(at));
  for (std::size_t i = 0; i < h.elements; ++i) {
    std::uint32_t size = 0;
    if (!in.read(reinterpret_cast<char*>(&size), sizeof size)) bad(where, "node " + std::to_string(i) + "'s links cut off");
    at += sizeof size;
    if (size % upper_bytes != 0 || size / upper_bytes > static_cast<std::size_t>(h.max_layer)) {
      bad(where, "node " + std::to_string(i) + "'s upper layers");
    }
    if (size > file_size - at) bad(where, "node " + std::to_string(i) + "'s links cut off");
    at += size;
    in.seekg(static_cast<std::streamoff>(at));
  }
  if (at != file_size) bad(where, std::to_string(file_size - at) + " bytes after the last node");
}

void check_graph(const hnswlib::HierarchicalNSW<float>& g, std::size_t dim, const std::filesystem::path& file) {
  const std::string where = file.string();
  const std::size_t n = g.cur_element_count;
  std::vector<char> labelled(n, 0);
  for (tableint i = 0; i < n; ++i) {
    const labeltype label = g.getExternalLabel(i);
    if (label >= n || labelled[label]) bad(where, "node " + std::to_string(i) + "'s record " + std::to_string(label));
    labelled[label] = 1;
    if (g.isMarkedDeleted(i)) bad(where, "node " + std::to_string(i) + " is marked deleted");
    if (g.element_levels_[i] > g.maxlevel_) bad(where, "node " + std::to_string(i) + " above the top layer");
    const auto* vector = reinterpret_cast<const float*>(g.getDataByInternalId(i));
    for (std::size_t d = 0; d < dim; ++d) {
      if (!std::isfinite(vector[d])) bad(where, "record " + std::to_string(label) + "'s vector is not finite");
    }
    for (int layer = 0; layer <= g.element_levels_[i]; ++layer) {
      const linklistsizeint* list = layer == 0 ? g.get_linklist0(i) : g.get_linklist(i, layer);
      const std::size_t count = g.getListCount(const_cast<linklistsizeint*>(list));
      if (count > (layer == 0 ? g.maxM0_ : g.maxM_)) {
        bad(where, "node " + std::to_string(i) + " has " + std::to_string(count) + " links on layer " + std::to_string(layer));
      }
      const auto* targets = reinterpret_cast<const tableint*>(list + 1);
      for (std::size_t k = 0; k < count; ++k) {
        if (targets[k] >= n || g.element_levels_[targets[k]] < layer) {
          bad(where, "node " + std::to_string(i) + " links to " + std::to_string(targets[k]) + " on layer " +
                         std::to_string(layer));
        }
      }
    }
  }
  if (n > 0 && g.element_levels_[g.enterpoint_node_] != g.maxlevel_) bad(where, "the entry point is not on the top layer");
}

}  // namespace geoalign::index
