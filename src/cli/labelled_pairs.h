#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/args.h"
#include "dedup/pair_evaluation.h"
#include "engine/engine.h"

namespace geoalign::cli {

// The labelled pairs of `path` (addr1<TAB>addr2<TAB>label), normalized by `model`, for
// dedup's and link's --eval. Labels: 2 / exact_match = one place and 0 / not_match = not,
// 1 / partial_match left out (CCKS); or, in a file of numbers with no label above 1, 1 =
// one place (Shenzhen). Says on stderr, as `geoalign COMMAND`, how the labels were read.
// Throws Error naming the line of a bad row or an unknown label.
std::vector<dedup::LabelledPair> read_labelled_pairs(const std::string& path, const engine::Engine& model,
                                                    const std::string& command);

// dedup's and link's --curve FILE (an SVG chart of the --eval curve).
extern const Args::Option kCurveOption;

// --threshold as dedup and link read it beside --eval: a number in [0, 1], or a target
// chosen on the labels' curve (best-f1, precision>=X, recall>=X).
struct ThresholdOption {
  std::optional<float> value;  // a number given
  std::string target;          // a target given; empty for none
  // The threshold the target picks on `curve`; throws Error naming `labels_file` when no
  // point of the curve reaches it.
  float chosen_on(std::span<const dedup::ThresholdPoint> curve, const std::string& labels_file) const;
};
// Read before any work: a target without --eval, a target it cannot read (precision>=2),
// --curve without --eval or a number outside [0, 1] is a UsageError.
ThresholdOption threshold_option(const Args& args);

}  // namespace geoalign::cli
