#include "cli/model_options.h"

#include "geoalign/error.h"

namespace geoalign::cli {

namespace {
template <typename Parse>
auto read_as_usage(const Args& args, const char* name, Parse parse) {
  try {
    return parse(args.value(name));
  } catch (const Error& e) {
    throw UsageError(std::string("--") + name + ": " + e.what());
  }
}
}  // namespace

Precision precision_option(const Args& args) {
  return read_as_usage(args, "precision", [](const std::string& v) { return parse_precision(v); });
}

Device device_option(const Args& args) {
  return read_as_usage(args, "device", [](const std::string& v) { return parse_device(v); });
}

}  // namespace geoalign::cli
