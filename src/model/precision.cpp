#include "model/precision.h"

namespace geoalign::model {

ops::MatmulPrecision resolve_precision(Precision requested) {
  switch (requested) {
    case Precision::FP32: return ops::MatmulPrecision::FP32;
    case Precision::BF16: return ops::MatmulPrecision::BF16;
    case Precision::INT8: return ops::MatmulPrecision::INT8;
    case Precision::Auto: break;
  }
  // int8 and bf16 both keep fp32's labels within the accuracy bounds on real pairs
  // (README, "Precision"); each pays only where the CPU multiplies it natively. Where
  // both are native, int8 measured fastest (geoalign bench, Zen 5: 4x256 and BERT-base
  // shapes, batch 1 and 64). On plain AVX2 both are slower than fp32.
  if (ops::int8_weight_levels() == 127) return ops::MatmulPrecision::INT8;
  return ops::native_bf16_matmul() ? ops::MatmulPrecision::BF16 : ops::MatmulPrecision::FP32;
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
