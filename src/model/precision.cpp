#include "model/precision.h"

namespace geoalign::model {

ops::MatmulPrecision resolve_precision(Precision requested) {
  switch (requested) {
    case Precision::FP32: return ops::MatmulPrecision::FP32;
    case Precision::INT8: return ops::MatmulPrecision::INT8;
    case Precision::BF16:
      throw Error(
          "precision bf16 has no kernel in this build (it needs AMX or AVX512-BF16, and this build has only "
          "fp32 and int8 paths); use fp32, int8 or auto");
    case Precision::Auto: break;
  }
  // int8 keeps fp32's labels within the accuracy bounds (README, "Precision"), but pays
  // only where the CPU multiplies int8 natively (VNNI, AMX); on plain AVX2 it is slower
  // than fp32 (measured with geoalign bench), so auto stays fp32 there.
  return ops::int8_weight_levels() == 127 ? ops::MatmulPrecision::INT8 : ops::MatmulPrecision::FP32;
}

Precision precision_of(ops::MatmulPrecision p) {
  return p == ops::MatmulPrecision::INT8 ? Precision::INT8 : Precision::FP32;
}

}  // namespace geoalign::model
