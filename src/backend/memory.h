#pragma once

#include <cstddef>

#include "backend/device.h"

namespace geoalign {

// Tensor storage on each device. A device this build lacks fails with a clear Error on
// first use, never later on a dereference.
void require_device(Device device);
std::byte* allocate_bytes(Device device, std::size_t bytes);
void free_bytes(Device device, std::byte* p) noexcept;
// Waits until the device has finished the work queued so far (for timing).
void synchronize(Device device);
template <Device D>
void synchronize();

// Copies between any two devices; pointers are each in their own device's memory.
void copy_bytes(Device to, std::byte* dst, Device from, const std::byte* src, std::size_t bytes);

template <Device D>
void require_device();
template <Device D>
std::byte* allocate_bytes(std::size_t bytes);
template <Device D>
void free_bytes(std::byte* p) noexcept;
// Copies where one side (or both, for D = CPU) is device D and the other the host.
template <Device D>
void copy_bytes(std::byte* dst, const std::byte* src, std::size_t bytes);

}  // namespace geoalign
