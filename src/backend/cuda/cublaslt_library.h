#pragma once

#include <cublasLt.h>

namespace geoalign::cuda {

// cuBLASLt, opened on first use rather than linked: loading the 540 MB library costs
// every process half a second and 200 MB of memory at start, GPU or not.
struct CublasLt {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtDestroy) destroy;
  decltype(&cublasLtGetStatusName) status_name;
  decltype(&cublasLtGetStatusString) status_string;
  decltype(&cublasLtMatmulDescCreate) matmul_desc_create;
  decltype(&cublasLtMatmulDescDestroy) matmul_desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) matmul_desc_set_attribute;
  decltype(&cublasLtMatrixLayoutCreate) matrix_layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) matrix_layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) preference_create;
  decltype(&cublasLtMatmulPreferenceDestroy) preference_destroy;
  decltype(&cublasLtMatmulPreferenceSetAttribute) preference_set_attribute;
  decltype(&cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic;
  decltype(&cublasLtMatmul) matmul;
};

// Throws Error naming the library and the loader's reason when it cannot be opened.
const CublasLt& cublaslt();

// Throws Error naming the call and cuBLASLt's reason unless status is success.
void check_blas(cublasStatus_t status, const char* what);

}  // namespace geoalign::cuda
