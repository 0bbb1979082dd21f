#include "match/scratch.h"

#include <vector>

namespace geoalign::match {

namespace {
template <typename T>
std::span<T> grown(std::vector<T>& buffer, std::size_t n) {
  if (buffer.size() < n) buffer.resize(n);
  return {buffer.data(), n};
}
}  // namespace

std::span<std::size_t> scratch_sizes(std::size_t n) {
  thread_local std::vector<std::size_t> buffer;
  return grown(buffer, n);
}

std::span<double> scratch_doubles(std::size_t n) {
  thread_local std::vector<double> buffer;
  return grown(buffer, n);
}

}  // namespace geoalign::match
