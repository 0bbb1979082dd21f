#include "backend/cuda/cublaslt_library.h"

#include <dlfcn.h>

#include <string>

#include "geoalign/error.h"

namespace geoalign::cuda {

namespace {

// The soname of the toolkit this build compiled against (CUBLAS_VER_MAJOR).
const std::string kLibrary = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);

template <typename F>
void resolve(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (f == nullptr) throw Error(kLibrary + " has no " + name + ": " + dlerror());
}

CublasLt open_library() {
  void* library = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw Error("cannot load cuBLASLt (" + kLibrary + "), which the CUDA linear layers need: " + dlerror() +
                " (add the CUDA toolkit's lib64 to LD_LIBRARY_PATH)");
  }
  CublasLt lt{};
  resolve(library, "cublasLtCreate", lt.create);
  resolve(library, "cublasLtDestroy", lt.destroy);
  resolve(library, "cublasLtGetStatusName", lt.status_name);
  resolve(library, "cublasLtGetStatusString", lt.status_string);
  resolve(library, "cublasLtMatmulDescCreate", lt.matmul_desc_create);
  resolve(library, "cublasLtMatmulDescDestroy", lt.matmul_desc_destroy);
  resolve(library, "cublasLtMatmulDescSetAttribute", lt.matmul_desc_set_attribute);
  resolve(library, "cublasLtMatrixLayoutCreate", lt.matrix_layout_create);
  resolve(library, "cublasLtMatrixLayoutDestroy", lt.matrix_layout_destroy);
  resolve(library, "cublasLtMatmulPreferenceCreate", lt.preference_create);
  resolve(library, "cublasLtMatmulPreferenceDestroy", lt.preference_destroy);
  resolve(library, "cublasLtMatmulPreferenceSetAttribute", lt.preference_set_attribute);
  resolve(library, "cublasLtMatmulAlgoGetHeuristic", lt.algo_get_heuristic);
  resolve(library, "cublasLtMatmul", lt.matmul);
  return lt;  // the library stays open for the life of the process
}

}  // namespace

const CublasLt& cublaslt() {
  static const CublasLt lt = open_library();
  return lt;
}

void check_blas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw Error(std::string(what) + " failed: " + cublaslt().status_name(status) + " (" +
                cublaslt().status_string(status) + ")");
  }
}

}  // namespace geoalign::cuda
