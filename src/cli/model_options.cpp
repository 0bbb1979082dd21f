#include "cli/model_options.h"

#include "backend/threads.h"
#include "geoalign/error.h"

namespace geoalign::cli {

const Args::Option kModelOption = {"model", true, "model folder (Hugging Face layout, with geoalign's heads if any)",
                                   "models/default"};
const Args::Option kPrecisionOption = {
    "precision", true, "fp32, bf16, int8 or auto (the fastest that keeps fp32 accuracy on this machine)", "auto"};
const Args::Option kThreadsOption = {"threads", true, "CPU threads, 0 = one per core", "0"};
const Args::Option kBatchSizeOption = {"batch-size", true, "pairs per encoder batch", std::to_string(kDefaultBatchSize)};
const Args::Option kOnErrorOption = {"on-error", true, "bad input lines: fail (stop at the first) or skip (report them and go on)",
                                     "fail"};
const Args::Option kPairScorerOption = {
    "head", true, "pair scorer: rerank (parses and trees, fast) or match (cross-encoder and match head, as score)",
    "rerank"};

int threads_option(const Args& args) { return static_cast<int>(args.integer("threads", 0, kMaxThreads)); }

std::size_t batch_size_option(const Args& args) { return static_cast<std::size_t>(args.integer("batch-size", 1, 65536)); }

void check_on_error(const std::string& on_error) {
  if (on_error != "fail" && on_error != "skip") throw UsageError("--on-error must be fail or skip");
}

std::string on_error_option(const Args& args) {
  std::string on_error = args.value("on-error");
  check_on_error(on_error);
  return on_error;
}

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
