#include "backend/ops/concat.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void concat_columns(std::span<const Tensor> parts, Tensor& out) {
  constexpr const char* op = "concat_columns";
  if (parts.empty()) throw Error("concat_columns: no parts");
  std::int64_t width = 0;
  for (const Tensor& part : parts) {
    require_rank(part, 2, op, "part");
    require_dim(part, 0, parts[0].dim(0), op, "part");
    if (part.device() != parts[0].device()) throw Error("concat_columns: parts on different devices");
    width += part.dim(1);
  }
  out.resize({parts[0].dim(0), width}, parts[0].device());
  GEOALIGN_DISPATCH_DEVICE(parts[0].device(), concat_columns<D>(parts, out));
}

}  // namespace geoalign::ops
