#include "backend/ops/layer_norm.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void layer_norm(const Tensor& x, const Tensor* residual, const Tensor& gamma, const Tensor& beta, float eps,
                Tensor& y) {
  constexpr const char* op = "layer_norm";
  require_rank(x, 2, op, "x");
  const std::int64_t hidden = x.dim(1);
  if (residual != nullptr && residual->shape() != x.shape()) {
    throw Error("layer_norm: residual " + shape_to_string(residual->shape()) + " does not match x " +
                shape_to_string(x.shape()));
  }
  require_dim(gamma, 0, hidden, op, "gamma");
  require_dim(beta, 0, hidden, op, "beta");
  for (const Tensor* t : {residual, &gamma, &beta}) {
    if (t != nullptr) require_device_of(*t, x.device(), op);
  }
  y.resize(x.shape(), x.device());
  GEOALIGN_DISPATCH_DEVICE(x.device(), layer_norm<D>(x, residual, gamma, beta, eps, y));
}

}  // namespace geoalign::ops
