// The index's own file readers on arbitrary bytes: the records' string columns, the
// stored parses, the lexical postings and the vector graph. Each must read a well-formed
// file or throw Error; never crash, never read past the end, never allocate what the
// file cannot hold. The files are read directly, as if their manifest's checksums had
// been recomputed over the damage: a checksum is not what keeps search in bounds.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "index/lexical_index.h"
#include "index/stored_parses.h"
#include "index/string_column.h"
#include "index/vector_index.h"
#include "support/unit_vectors.h"

namespace {

constexpr std::size_t kDim = 8, kNodes = 64;

// The bytes of a valid graph of kNodes random unit vectors: graph inputs are edits of it,
// so the fuzzer spends its time on near-valid graphs (one flipped link, an entry point
// out of range) rather than on headers hnswlib's own checks refuse.
const std::string& valid_graph(const std::filesystem::path& file) {
  static const std::string bytes = [&] {
    const std::vector<float> rows = geoalign::testing::random_unit_vectors(kNodes, kDim, 3);
    geoalign::index::VectorIndex::Options options;
    options.links = 4;  // small lists: more nodes get upper layers
    geoalign::index::VectorIndex graph(kDim, options);
    graph.add(rows);
    graph.write(file);
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return bytes;
}

void search_graph(const std::filesystem::path& file) {
  const auto graph = geoalign::index::VectorIndex::read(file, kDim, kNodes);
  std::vector<float> query(kDim, 0.0f);
  query[0] = 1.0f;
  graph.search(query, 5, 16);
  std::vector<std::uint32_t> some = {1, 7, 30, 63};
  geoalign::index::RecordSet only;
  only.lists.emplace_back(some);
  only.size = some.size();
  only.contains = [&](std::uint32_t r) { return r == 1 || r == 7 || r == 30 || r == 63; };
  graph.search(query, 2, 16, &only);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("fuzz_index_" + std::to_string(getpid()) + ".bin");
  if (size == 0) return 0;
  // The first byte picks which reader; the magic and version are filled in so the fuzzer
  // spends its time past them.
  const int reader = data[0] % 4;
  try {
    if (reader == 3) {
      // The graph: (offset, byte) edits of a valid one, 3 bytes each; a last odd byte cuts
      // the file to that share of its length.
      std::string bytes = valid_graph(file);
      std::size_t i = 1;
      for (; i + 3 <= size; i += 3) {
        const std::size_t at = (std::size_t{data[i]} | std::size_t{data[i + 1]} << 8) % bytes.size();
        bytes[at] = static_cast<char>(data[i + 2]);
      }
      if (i < size) bytes.resize(bytes.size() * data[i] / 255);
      std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      search_graph(file);
      return 0;
    }
    static const char* const kMagic[] = {"GAXREC", "GAXPAR", "GAXLEX"};
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      const std::string magic = std::string(kMagic[reader]) + std::string(2, '\0');
      const std::uint32_t version = 1;
      out.write(magic.data(), 8);
      out.write(reinterpret_cast<const char*>(&version), sizeof version);
      out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    }
    if (reader == 2) {
      const auto ix = geoalign::index::LexicalIndex::read(file, 4);
      ix.search("北京市朝阳区", 3);
    } else if (reader == 1) {
      geoalign::index::BinaryReader in(file, "GAXPAR", 1);
      const auto parses = geoalign::index::StoredParses::read(in);
      for (std::size_t r = 0; r < parses.size(); ++r) (void)parses.elements(r);
    } else {
      geoalign::index::BinaryReader in(file, "GAXREC", 1);
      const auto column = geoalign::index::StringColumn::read(in, "ids");
      for (std::size_t i = 0; i < column.size(); ++i) (void)column[i];
    }
  } catch (const geoalign::Error&) {
  }
  return 0;
}
