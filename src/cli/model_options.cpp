#include "cli/model_options.h"

#include "backend/threads.h"
#include "model/folder_parser.h"
#include "geoalign/error.h"

namespace geoalign::cli {

const Args::Option kModelOption = {
    "model", true,
    "model folder (Hugging Face layout, with geoalign's heads if any); default: the bundled model (models/default "
    "here, else beside the binary or where it was built)",
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

std::vector<std::filesystem::path> default_model_candidates() {
  std::vector<std::filesystem::path> candidates = {std::filesystem::path("models") / "default"};
  for (auto& dir : model::bundled_model_dirs()) candidates.push_back(std::move(dir));
  return candidates;
}

std::filesystem::path default_model_dir() {
  std::string looked;
  for (const auto& candidate : default_model_candidates()) {
    std::error_code ec;
    if (std::filesystem::is_directory(candidate, ec)) return candidate;
    looked += (looked.empty() ? "" : ", ") + candidate.string();
  }
  throw Error("no model folder given, and the bundled model is not in any of the places looked in (" + looked +
              "): pass --model DIR");
}

std::string model_dir_option(const Args& args) {
  if (!args.given("model")) return default_model_dir().string();
  const std::filesystem::path dir = args.value("model");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::string where = dir.string();
    if (dir.is_relative()) where += " (relative to the current directory, " + std::filesystem::current_path(ec).string() + ")";
    throw Error("model folder " + where + " does not exist; pass --model DIR with a model folder");
  }
  return dir.string();
}

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

const Args::Option kAliasesOption = {
    "aliases", true,
    "your own names for places, short<TAB>full per line (西湖银泰<TAB>西湖银泰城购物中心), beside the model's aliases.tsv",
    ""};

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

PairReading reading_option(const Args& args) {
  return args.flag("ordered") ? PairReading::Ordered : PairReading::Symmetric;
}

engine::EngineOptions engine_options(const Args& args) {
  engine::EngineOptions options;
  options.precision = precision_option(args);
  if (args.declares("threads")) options.threads = threads_option(args);
  if (args.declares("device")) {
    device_option(args);
    options.device = args.value("device");
  }
  if (args.declares("head")) {
    options.head = read_as_usage("head", args.value("head"), [](const std::string& v) { return engine::parse_head(v); });
  }
  if (args.declares("parser")) options.parser_dir = args.value("parser");
  if (args.declares("aliases")) options.aliases = args.value("aliases");
  return options;
}

}  // namespace geoalign::cli
