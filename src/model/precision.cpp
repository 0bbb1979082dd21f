#include "model/precision.h"

namespace geoalign::model {

ops::MatmulPrecision resolve_precision(Precision requested, Device device) {
  switch (requested) {
    case Precision::FP32: return ops::MatmulPrecision::FP32;
    case Precision::BF16: return ops::MatmulPrecision::BF16;
    case Precision::INT8: return ops::MatmulPrecision::INT8;
    case Precision::Auto: break;
  }
  return ops::auto_matmul_precision(device);
}

Precision precision_of(ops::MatmulPrecision p) {
  switch (p) {
    case ops::MatmulPrecision::BF16: return Precision::BF16;
    case ops::MatmulPrecision::INT8: return Precision::INT8;
    case ops::MatmulPrecision::FP32: break;
  }
  return Precision::FP32;
}

}  // namespace geoalign::model
