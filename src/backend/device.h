#pragma once

#include <string>

#include "geoalign/error.h"

namespace geoalign {

enum class Device { CPU, CUDA };
enum class DType { F32, I32 };

inline const char* device_name(Device d) { return d == Device::CPU ? "cpu" : "cuda"; }

// Runs `body` with a constexpr `D` bound to the runtime device, so an op's generic
// entry point can call the per-device specialization `op<D>(...)`.
#ifdef GEOALIGN_WITH_CUDA
#define GEOALIGN_DISPATCH_DEVICE(device, body)             \
  switch (device) {                                        \
    case ::geoalign::Device::CPU: {                        \
      constexpr ::geoalign::Device D = ::geoalign::Device::CPU; \
      body;                                                \
      break;                                               \
    }                                                      \
    case ::geoalign::Device::CUDA: {                       \
      constexpr ::geoalign::Device D = ::geoalign::Device::CUDA; \
      body;                                                \
      break;                                               \
    }                                                      \
  }
#else
#define GEOALIGN_DISPATCH_DEVICE(device, body)                                         \
  switch (device) {                                                                    \
    case ::geoalign::Device::CPU: {                                                    \
      constexpr ::geoalign::Device D = ::geoalign::Device::CPU;                        \
      body;                                                                            \
      break;                                                                           \
    }                                                                                  \
    case ::geoalign::Device::CUDA:                                                     \
      throw ::geoalign::Error("this geoalign build has no CUDA backend (device cuda)"); \
  }
#endif

}  // namespace geoalign
