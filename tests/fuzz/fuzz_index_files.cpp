// The index's own file readers on arbitrary bytes: the records' string columns, the
// stored parses and the lexical postings. Each must read a well-formed file or throw Error; never crash, never
// read past the end, never allocate what the file cannot hold. (vectors.hnsw is read by
// hnswlib, which trusts its input: the manifest's checksum guards it.)
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "index/lexical_index.h"
#include "index/stored_parses.h"
#include "index/string_column.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("fuzz_index_" + std::to_string(getpid()) + ".bin");
  if (size == 0) return 0;
  // The first byte picks which reader; the magic and version are filled in so the fuzzer
  // spends its time past them.
  const int reader = data[0] % 3;
  static const char* const kMagic[] = {"GAXREC", "GAXPAR", "GAXLEX"};
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    const std::string magic = std::string(kMagic[reader]) + std::string(2, '\0');
    const std::uint32_t version = 1;
    out.write(magic.data(), 8);
    out.write(reinterpret_cast<const char*>(&version), sizeof version);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
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
