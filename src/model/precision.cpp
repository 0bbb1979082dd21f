#include "model/precision.h"

namespace geoalign::model {

ops::MatmulPrecision resolve_precision(Precision requested) {
  switch (requested) {
    case Precision::FP32: return ops::MatmulPrecision::FP32;
    case Precision::BF16: return ops::MatmulPrecision::BF16;
    case Precision::INT8: return ops::MatmulPrecision::INT8;
    case Precision::Auto: break;
  }
  // Both bf16 and int8 keep fp32's labels within the accuracy bounds (README,
  // "Precision"), but each pays only where the CPU multiplies it natively; on plain AVX2
  // both are slower than fp32 (measured with geoalign bench), so auto stays fp32 there.
  if (ops::native_bf16_matmul()) return ops::MatmulPrecision::BF16;
  return ops::int8_weight_levels() == 127 ? ops::MatmulPrecision::INT8 : ops::MatmulPrecision::FP32;
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
