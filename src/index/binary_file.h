#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "geoalign/error.h"

namespace geoalign::index {

// The index's own files: a magic word naming what the file holds, a format version, then
// length-prefixed arrays of plain values. Every read is checked against what is left of
// the file, so a truncated or foreign file is an Error naming it and the array it was
// reading, never a read past the end or an absurd allocation.
class BinaryWriter {
 public:
  BinaryWriter(const std::filesystem::path& file, std::string_view magic, std::uint32_t version);

  void u64(std::uint64_t value) { raw(&value, sizeof value); }
  template <typename T>
  void array(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    u64(values.size());
    raw(values.data(), values.size_bytes());
  }
  // An array written in pieces: its length, then values() calls that add up to it.
  void array_length(std::uint64_t n) { u64(n); }
  template <typename T>
  void values(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    raw(values.data(), values.size_bytes());
  }
  // Flushes and checks that every byte reached the disk's cache.
  void close();

 private:
  void raw(const void* data, std::size_t bytes);
  std::filesystem::path file_;
  std::ofstream out_;
};

class BinaryReader {
 public:
  // Reads the whole file; throws Error if it is not `magic` at `version`.
  BinaryReader(const std::filesystem::path& file, std::string_view magic, std::uint32_t version);

  std::uint64_t u64(const char* what);
  template <typename T>
  std::vector<T> array(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::uint64_t n = u64(what);
    if (n > (bytes_.size() - pos_) / sizeof(T)) truncated(what);
    std::vector<T> values(n);
    take(values.data(), n * sizeof(T), what);
    return values;
  }
  // Throws unless the whole file was read: trailing bytes mean another layout.
  void expect_end();
  [[noreturn]] void corrupt(const std::string& why) const;

 private:
  void take(void* out, std::size_t bytes, const char* what);
  [[noreturn]] void truncated(const char* what) const;
  std::filesystem::path file_;
  std::vector<char> bytes_;
  std::size_t pos_ = 0;
};

// A 64-bit checksum of a file's bytes (for files that a library reads on its own, whose
// corruption we must catch before handing them over).
std::uint64_t file_checksum(const std::filesystem::path& file);
// The same over a folder's regular files, by name, names included, leaving out those
// named in `skip`.
std::uint64_t folder_checksum(const std::filesystem::path& dir, std::span<const std::string_view> skip = {});

}  // namespace geoalign::index
