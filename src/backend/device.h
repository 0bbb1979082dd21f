#pragma once

#include <string>
#include <string_view>

#include "geoalign/error.h"

namespace geoalign {

enum class Device { CPU, CUDA };
enum class DType { F32, I32 };

inline const char* device_name(Device d) { return d == Device::CPU ? "cpu" : "cuda"; }

// "cpu", "cuda" or "cuda:0". Throws Error for anything else, and for another GPU than the
// first, which nothing selects yet.
Device parse_device(std::string_view name);

// Runs `body` with a constexpr `D` bound to the runtime device, so an op's generic
// entry point can call the per-device specialization `op<D>(...)`.
#define GEOALIGN_DEVICE_CASE(device_value, body)           \
  case device_value: {                                      \
    constexpr ::geoalign::Device D = device_value;          \
    body;                                                   \
    break;                                                  \
  }

#ifdef GEOALIGN_WITH_CUDA
#define GEOALIGN_CUDA_CASE(body) GEOALIGN_DEVICE_CASE(::geoalign::Device::CUDA, body)
#else
#define GEOALIGN_CUDA_CASE(body) \
  case ::geoalign::Device::CUDA:  \
    throw ::geoalign::Error("this geoalign build has no CUDA backend (device cuda)");
#endif

#define GEOALIGN_DISPATCH_DEVICE(device, body)              \
  switch (device) {                                         \
    GEOALIGN_DEVICE_CASE(::geoalign::Device::CPU, body)     \
    GEOALIGN_CUDA_CASE(body)                                \
  }

}  // namespace geoalign
