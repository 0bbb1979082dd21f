#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/device.h"
#include "cli/args.h"
#include "engine/engine.h"
#include "geoalign/matcher.h"

namespace geoalign::cli {

// --precision and --device read as usage: a value none of the commands know is a
// UsageError (exit 2), as a bad --batch-size is, not a failure of the run (exit 1).
Precision precision_option(const Args& args);
// One value of a --precision list (bench's fp32,int8).
Precision precision_value(const std::string& value);
Device device_option(const Args& args);

// The options most commands share, declared once so that their help, defaults and checks
// cannot drift apart between commands.
extern const Args::Option kModelOption;      // --model DIR, default: default_model_dir()
extern const Args::Option kPrecisionOption;  // --precision fp32|bf16|int8|auto
extern const Args::Option kThreadsOption;    // --threads N, 0 = one per core
extern const Args::Option kBatchSizeOption;  // --batch-size N pairs per encoder batch
extern const Args::Option kOnErrorOption;    // --on-error fail|skip
// search's and dedup's --head: the rerank head (parses and trees) or the cross-encoder.
extern const Args::Option kPairScorerOption;

// --model: the folder given, which must exist (an error names it, and the current
// directory when it is relative), else default_model_dir().
std::string model_dir_option(const Args& args);
// Where a command looks for the bundled model when no --model is given, in order:
// models/default under the current directory (a checkout), then model::bundled_model_dirs()
// (beside the binary, the source tree it was built from, the install prefix).
std::vector<std::filesystem::path> default_model_candidates();
// The first candidate that is a folder; throws Error listing where it looked and how to
// pass --model.
std::filesystem::path default_model_dir();

// --threads, 0 to kMaxThreads (a UsageError outside).
int threads_option(const Args& args);
// --batch-size, 1 to 65,536.
std::size_t batch_size_option(const Args& args);
// Throws UsageError unless on_error is "fail" or "skip".
void check_on_error(const std::string& on_error);
// --on-error, checked.
std::string on_error_option(const Args& args);

// The engine as a command's options ask for it: --model is read by the caller; --precision,
// and where the command declares them --threads, --device, --head, --parser and --aliases.
// A value none of them knows is a UsageError, before anything loads. The reading is the
// command's: score, eval and serve read every pair as --ordered says (reading_option),
// search and link per query.
engine::EngineOptions engine_options(const Args& args);
// --ordered: PairReading::Ordered, else Symmetric.
PairReading reading_option(const Args& args);

// --parser DIR: the parser for a model folder without a match head (an MGeo or Hugging
// Face folder); empty: the folder's own parser/, else the bundled one (model/folder_parser.h).
extern const Args::Option kParserOption;
// --aliases FILE: the user's names for places, short<TAB>full per line, beside the model
// folder's aliases.tsv (text/aliases.h).
extern const Args::Option kAliasesOption;

}  // namespace geoalign::cli
