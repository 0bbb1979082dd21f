// geoalign version (and geoalign --version): what this binary is and what it would run
// with: its version and commit, the model it finds without --model, and the CPU kernels
// and precision it picks on this machine.
#include <cstdio>

#include "backend/cpu/isa.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/model_options.h"
#include "geoalign/error.h"
#include "index/binary_file.h"
#include "model/precision.h"

namespace geoalign::cli {

int run_version(int argc, char** argv, int first) {
  Args args("version", {}, "");
  args.parse(argc, argv, first);
  std::printf("geoalign version %s (commit %s)\n", GEOALIGN_VERSION, GEOALIGN_GIT_COMMIT);
  try {
    const std::filesystem::path model = default_model_dir();
    std::printf("model: %s (checksum %016llx)\n", std::filesystem::absolute(model).string().c_str(),
                static_cast<unsigned long long>(index::folder_checksum(model)));
  } catch (const Error& e) {
    std::printf("model: none found (%s)\n", e.what());
  }
  std::printf("cpu: %s kernels, auto precision %s\n", cpu::isa_name(cpu::active_isa()),
              precision_name(model::precision_of(model::resolve_precision(Precision::Auto))));
  return 0;
}

}  // namespace geoalign::cli
