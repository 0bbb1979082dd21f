#include "backend/ops/normalize.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void l2_normalize_rows(Tensor& x) {
  require_rank(x, 2, "l2_normalize_rows", "x");
  GEOALIGN_DISPATCH_DEVICE(x.device(), l2_normalize_rows<D>(x));
}

}  // namespace geoalign::ops
