#pragma once

#include "backend/ops/linear.h"
#include "geoalign/matcher.h"

namespace geoalign::model {

// The matmul precision a requested precision runs at. Throws Error for a precision this
// build has no kernel for, naming what to use instead.
ops::MatmulPrecision resolve_precision(Precision requested);
Precision precision_of(ops::MatmulPrecision p);

}  // namespace geoalign::model
