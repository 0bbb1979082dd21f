#include "index/binary_file.h"

#include <algorithm>

#include <cstring>

namespace geoalign::index {

namespace {
constexpr std::size_t kMagicBytes = 8;

std::string padded_magic(std::string_view magic) {
  std::string m(magic.substr(0, kMagicBytes));
  m.resize(kMagicBytes, '\0');
  return m;
}
}  // namespace

BinaryWriter::BinaryWriter(const std::filesystem::path& file, std::string_view magic, std::uint32_t version)
    : file_(file), out_(file, std::ios::binary | std::ios::trunc) {
  if (!out_) throw Error(file.string() + ": cannot create");
  const std::string m = padded_magic(magic);
  raw(m.data(), m.size());
  raw(&version, sizeof version);
}

void BinaryWriter::raw(const void* data, std::size_t bytes) {
  out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out_) throw Error(file_.string() + ": write failed (disk full?)");
}

void BinaryWriter::close() {
  out_.flush();
  if (!out_) throw Error(file_.string() + ": write failed (disk full?)");
  out_.close();
}

BinaryReader::BinaryReader(const std::filesystem::path& file, std::string_view magic, std::uint32_t version)
    : file_(file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) throw Error(file.string() + ": cannot open");
  bytes_.resize(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
  if (!in) throw Error(file.string() + ": read failed");
  const std::string expected = padded_magic(magic);
  if (bytes_.size() < kMagicBytes + sizeof(std::uint32_t) || std::memcmp(bytes_.data(), expected.data(), kMagicBytes) != 0) {
    corrupt("not a " + std::string(magic) + " file");
  }
  pos_ = kMagicBytes;
  std::uint32_t found = 0;
  take(&found, sizeof found, "version");
  if (found != version) {
    corrupt("format version " + std::to_string(found) + ", this build reads version " + std::to_string(version) +
            " (rebuild the index)");
  }
}

std::uint64_t BinaryReader::u64(const char* what) {
  std::uint64_t v = 0;
  take(&v, sizeof v, what);
  return v;
}

void BinaryReader::take(void* out, std::size_t bytes, const char* what) {
  if (bytes > bytes_.size() - pos_) truncated(what);
  if (bytes > 0) std::memcpy(out, bytes_.data() + pos_, bytes);
  pos_ += bytes;
}

void BinaryReader::expect_end() {
  if (pos_ != bytes_.size()) corrupt(std::to_string(bytes_.size() - pos_) + " unexpected bytes at the end");
}

void BinaryReader::truncated(const char* what) const {
  corrupt(std::string("truncated while reading ") + what + " at byte " + std::to_string(pos_));
}

void BinaryReader::corrupt(const std::string& why) const { throw Error(file_.string() + ": " + why); }

std::uint64_t file_checksum(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot open");
  // FNV-1a over 8-byte words: fast enough to check a gigabyte at load in well under a second.
  std::uint64_t h = 0xcbf29ce484222325ull;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    std::size_t i = 0;
    for (; i + 8 <= got; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, buffer.data() + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < got; ++i) h = (h ^ static_cast<unsigned char>(buffer[i])) * 0x100000001b3ull;
  }
  if (in.bad()) throw Error(file.string() + ": read failed");
  return h;
}

std::uint64_t folder_checksum(const std::filesystem::path& dir, std::span<const std::string_view> skip) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && std::find(skip.begin(), skip.end(), name) == skip.end()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::uint64_t h = 0;
  for (const auto& file : files) {
    for (unsigned char c : file.filename().string()) h = (h ^ c) * 0x100000001b3ull;
    h = h * 31 + file_checksum(file);
  }
  return h;
}

}  // namespace geoalign::index
