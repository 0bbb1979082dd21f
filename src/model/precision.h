#pragma once

#include "backend/ops/linear.h"
#include "geoalign/matcher.h"

namespace geoalign::model {

// The matmul precision a requested precision runs at on `device`: `auto` is the device's
// fastest that keeps fp32's labels.
ops::MatmulPrecision resolve_precision(Precision requested, Device device = Device::CPU);
Precision precision_of(ops::MatmulPrecision p);

}  // namespace geoalign::model
