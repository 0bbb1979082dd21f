// libFuzzer: arbitrary bytes as a .safetensors file. Opening and reading every tensor
// must either work or throw geoalign::Error.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("fuzz.safetensors", 0);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    const auto file = geoalign::model::SafetensorsFile::open(path);
    for (const auto& name : file.names()) {
      try {
        file.load_f32(name);
      } catch (const geoalign::Error&) {
      }
    }
  } catch (const geoalign::Error&) {
  }
  return 0;
}
