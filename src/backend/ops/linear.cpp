#include "backend/ops/linear.h"

#include <atomic>
#include <chrono>

#include "backend/cpu/row_blocks.h"
#include "backend/memory.h"

namespace geoalign::ops {

namespace {
std::atomic<bool> clock_on{false};
std::atomic<std::int64_t> clock_nanoseconds{0};
}  // namespace

void LinearClock::enable(bool on) { clock_on.store(on, std::memory_order_relaxed); }
void LinearClock::reset() { clock_nanoseconds.store(0, std::memory_order_relaxed); }
bool LinearClock::on() { return clock_on.load(std::memory_order_relaxed); }
void LinearClock::add(double seconds) {
  clock_nanoseconds.fetch_add(static_cast<std::int64_t>(seconds * 1e9), std::memory_order_relaxed);
}
double LinearClock::seconds() { return static_cast<double>(clock_nanoseconds.load(std::memory_order_relaxed)) * 1e-9; }

const char* matmul_precision_name(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::BF16: return "bf16";
    case MatmulPrecision::INT8: return "int8";
    case MatmulPrecision::FP32: break;
  }
  return "fp32";
}

MatmulPrecision auto_matmul_precision(Device device) {
  GEOALIGN_DISPATCH_DEVICE(device, return auto_matmul_precision<D>());
  return MatmulPrecision::FP32;
}

Linear::Linear(const Tensor& weight, const Tensor& bias, Activation activation, MatmulPrecision precision) {
  if (weight.rank() != 2 || bias.rank() != 1 || bias.dim(0) != weight.dim(0)) {
    throw Error("linear layer: weight " + shape_to_string(weight.shape()) + " and bias " +
                shape_to_string(bias.shape()) + " do not fit together");
  }
  out_features_ = weight.dim(0);
  in_features_ = weight.dim(1);
  device_ = weight.device();
  if (bias.device() != device_) throw Error("linear layer: weight and bias are on different devices");
  GEOALIGN_DISPATCH_DEVICE(weight.device(), impl_ = make_linear<D>(weight, bias, activation, precision));
}

Linear::Linear(Linear&&) noexcept = default;
Linear& Linear::operator=(Linear&&) noexcept = default;
Linear::~Linear() = default;

namespace {

// Runs `work`, adding its wall time to the LinearClock while it is on. A GPU queues the
// work: it is timed from an idle device to a finished one.
template <typename Work>
void clocked(Device device, Work&& work) {
  if (!clock_on.load(std::memory_order_relaxed)) {
    work();
    return;
  }
  synchronize(device);
  const auto start = std::chrono::steady_clock::now();
  work();
  synchronize(device);
  clock_nanoseconds.fetch_add(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count(),
      std::memory_order_relaxed);
}

}  // namespace

void Linear::check_input(const Tensor& x) const {
  if (x.rank() != 2 || x.dim(1) != in_features_) {
    throw Error("linear layer expects [rows, " + std::to_string(in_features_) + "], got " +
                shape_to_string(x.shape()));
  }
  if (x.device() != device_) {
    throw Error(std::string("linear layer: input on ") + device_name(x.device()) + ", weights on " +
                device_name(device_));
  }
}

void Linear::operator()(const Tensor& x, Tensor& y) const {
  check_input(x);
  y.resize({x.dim(0), out_features_}, x.device());
  if (x.dim(0) == 0) return;
  clocked(device_, [&] { impl_->forward(x, y); });
}

void chain(const Linear& first, const Linear& second, const Tensor& x, Tensor& between, Tensor& y) {
  if (second.in_features() != first.out_features()) {
    throw Error("chained linear layers: " + std::to_string(first.out_features()) + " outputs into " +
                std::to_string(second.in_features()) + " inputs");
  }
  first.check_input(x);
  if (x.device() == Device::CPU && x.dim(0) > 0) {
    y.resize({x.dim(0), second.out_features()}, x.device());
    bool done = false;
    clocked(Device::CPU, [&] {
      done = cpu::chain_in_row_blocks(first, second, x.data<float>(), x.dim(0), y.data<float>());
    });
    if (done) return;
  }
  first(x, between);
  second(between, y);
}

}  // namespace geoalign::ops
