#include "cli/model_options.h"

#include "geoalign/error.h"

namespace geoalign::cli {

const Args::Option kParserOption = {
    "parser", true,
    "parser folder for a model folder without a match head (default: its own parser/, else the bundled one)", ""};

namespace {
template <typename Parse>
auto read_as_usage(const char* name, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const Error& e) {
    throw UsageError(std::string("--") + name + ": " + e.what());
  }
}
}  // namespace

Precision precision_value(const std::string& value) {
  return read_as_usage("precision", value, [](const std::string& v) { return parse_precision(v); });
}

Precision precision_option(const Args& args) { return precision_value(args.value("precision")); }

Device device_option(const Args& args) {
  return read_as_usage("device", args.value("device"), [](const std::string& v) { return parse_device(v); });
}

}  // namespace geoalign::cli
