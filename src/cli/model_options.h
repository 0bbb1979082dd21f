#pragma once

#include <string>

#include "backend/device.h"
#include "cli/args.h"
#include "geoalign/matcher.h"

namespace geoalign::cli {

// --precision and --device read as usage: a value none of the commands know is a
// UsageError (exit 2), as a bad --batch-size is, not a failure of the run (exit 1).
Precision precision_option(const Args& args);
// One value of a --precision list (bench's fp32,int8).
Precision precision_value(const std::string& value);
Device device_option(const Args& args);

// --parser DIR: the parser for a model folder without a match head (an MGeo or Hugging
// Face folder); empty: the folder's own parser/, else the bundled one (model/folder_parser.h).
extern const Args::Option kParserOption;

}  // namespace geoalign::cli
