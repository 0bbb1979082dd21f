#include "backend/ops/softmax.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void softmax(const Tensor& x, Tensor& y) {
  require_rank(x, 2, "softmax", "x");
  if (x.dim(1) == 0) throw Error("softmax: rows must not be empty");
  y.resize(x.shape(), x.device());
  GEOALIGN_DISPATCH_DEVICE(x.device(), softmax<D>(x, y));
}

}  // namespace geoalign::ops
