#include "model/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_set>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "backend/cpu/bf16.h"
#include "geoalign/error.h"

namespace geoalign::model {

namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;  // the format's own limit

// Element sizes of every dtype the safetensors format defines.
std::size_t dtype_size(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I16", 2}, {"U16", 2},
      {"F16", 2},  {"BF16", 2}, {"I32", 4}, {"U32", 4},     {"F32", 4},     {"I64", 8}, {"U64", 8}, {"F64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1F;
  std::uint32_t mantissa = h & 0x3FF;
  std::uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: renormalize
    std::uint32_t e = 113;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3FF) << 13);
  }
  return std::bit_cast<float>(bits);
}

}  // namespace

struct SafetensorsFile::Mapping {
  void* address = MAP_FAILED;
  std::size_t size = 0;
  ~Mapping() {
    if (address != MAP_FAILED) munmap(address, size);
  }
};

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) {
  const std::string where = path.string();
  SafetensorsFile file;
  file.path_ = path;
  file.mapping_ = std::make_unique<Mapping>();

  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + where + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    throw Error("cannot stat " + where);
  }
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  if (file_size < 8) {
    ::close(fd);
    throw Error(where + ": truncated: " + std::to_string(file_size) + " bytes, too short for a safetensors header");
  }
  file.mapping_->size = static_cast<std::size_t>(file_size);
  // Every tensor is read at load: the pages are mapped in one call, not faulted in one by one.
  file.mapping_->address = mmap(nullptr, file.mapping_->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (file.mapping_->address == MAP_FAILED) throw Error("cannot map " + where + ": " + std::strerror(errno));
  const auto* bytes = static_cast<const std::uint8_t*>(file.mapping_->address);

  std::uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[i];
  if (header_size > kMaxHeaderBytes || header_size > file_size - 8) {
    throw Error(where + ": header claims " + std::to_string(header_size) + " bytes but the file has " +
                std::to_string(file_size) + " (truncated or not a safetensors file)");
  }
  const std::uint64_t data_size = file_size - 8 - header_size;
  file.data_ = bytes + 8 + header_size;

  nlohmann::json header;
  // nlohmann keeps the last of two equal keys; two entries for one tensor are damage.
  std::unordered_set<std::string> tensor_names;
  std::string repeated_name;
  const auto note_repeats = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 &&
        !tensor_names.insert(parsed.get<std::string>()).second && repeated_name.empty()) {
      repeated_name = parsed.get<std::string>();
    }
    return true;
  };
  try {
    header = nlohmann::json::parse(bytes + 8, bytes + 8 + header_size, note_repeats);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(where + ": header is not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception&) {  // e.g. a number too large for any type
    throw Error(where + ": header is not valid JSON (a value is out of range)");
  }
  if (!header.is_object()) throw Error(where + ": header is not a JSON object");
  if (!repeated_name.empty()) throw Error(where + ": tensor \"" + repeated_name + "\" is listed twice in the header");

  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string at = where + ": tensor \"" + name + "\"";
    if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets")) {
      throw Error(at + " needs dtype, shape and data_offsets");
    }
    TensorEntry e;
    if (!value["dtype"].is_string()) throw Error(at + ": dtype must be a string");
    e.dtype = value["dtype"].get<std::string>();
    const std::size_t elem = dtype_size(e.dtype);
    if (elem == 0) throw Error(at + " has unknown dtype \"" + e.dtype + "\"");
    const auto& shape = value["shape"];
    const auto& offsets = value["data_offsets"];
    if (!shape.is_array()) throw Error(at + ": shape must be an array");
    std::uint64_t numel = 1;
    for (const auto& d : shape) {
      if (!d.is_number_unsigned()) throw Error(at + ": shape must hold non-negative integers");
      const auto dim = d.get<std::uint64_t>();
      if (dim != 0 && numel > (UINT64_MAX / 16) / dim) throw Error(at + ": shape is too large");
      numel *= dim;
      e.shape.push_back(static_cast<std::int64_t>(dim));
    }
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned()) {
      throw Error(at + ": data_offsets must be two non-negative integers");
    }
    e.begin = offsets[0].get<std::uint64_t>();
    e.end = offsets[1].get<std::uint64_t>();
    if (e.begin > e.end || e.end > data_size) {
      throw Error(at + ": data range [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                  ") lies outside the " + std::to_string(data_size) + "-byte data section (truncated file?)");
    }
    if (e.end - e.begin != numel * elem) {
      throw Error(at + ": " + std::to_string(e.end - e.begin) + " bytes of data for shape " +
                  shape_to_string(e.shape) + " of " + e.dtype + " (expected " + std::to_string(numel * elem) + ")");
    }
    file.entries_.emplace(name, std::move(e));
  }
  // Two tensors over the same bytes would load one tensor's values as the other's.
  std::vector<std::pair<const std::string*, const TensorEntry*>> by_offset;
  for (const auto& [name, e] : file.entries_) {
    if (e.end > e.begin) by_offset.emplace_back(&name, &e);
  }
  std::sort(by_offset.begin(), by_offset.end(), [](const auto& a, const auto& b) { return a.second->begin < b.second->begin; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i].second->begin < by_offset[i - 1].second->end) {
      throw Error(where + ": tensors \"" + *by_offset[i - 1].first + "\" and \"" + *by_offset[i].first +
                  "\" overlap in the data section (corrupt header)");
    }
  }
  return file;
}

const TensorEntry& SafetensorsFile::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) throw Error(path_.string() + ": missing tensor \"" + name + "\"");
  return it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

Tensor SafetensorsFile::load_f32(const std::string& name) const {
  const TensorEntry& e = entry(name);
  Tensor t(e.shape, DType::F32);
  float* out = t.data<float>();
  const std::uint8_t* src = data_ + e.begin;
  const auto n = static_cast<std::size_t>(t.numel());
  // The data section has no alignment guarantee, so values are copied out bytewise.
  if (e.dtype == "F32") {
    std::memcpy(out, src, n * sizeof(float));
  } else if (e.dtype == "BF16" || e.dtype == "F16") {
    const bool bf16 = e.dtype == "BF16";
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t v;
      std::memcpy(&v, src + 2 * i, 2);
      out[i] = bf16 ? cpu::from_bf16(v) : f16_to_f32(v);
    }
  } else {
    throw Error(path_.string() + ": tensor \"" + name + "\" has dtype " + e.dtype + "; geoalign reads F32, F16 and BF16");
  }
  // A NaN or infinite weight turns every output it reaches into NaN: embeddings of null
  // and a label from the comparisons of NaN probabilities (exact_match 0.985, once).
  const auto bad = std::find_if(out, out + n, [](float v) { return !std::isfinite(v); });
  if (bad != out + n) {
    throw Error(path_.string() + ": tensor \"" + name + "\" holds a non-finite value (" + std::to_string(*bad) +
                " at element " + std::to_string(bad - out) + ")");
  }
  return t;
}

}  // namespace geoalign::model
