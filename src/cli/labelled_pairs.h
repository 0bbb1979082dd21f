#pragma once

#include <string>
#include <vector>

#include "dedup/pair_evaluation.h"
#include "index/address_model.h"

namespace geoalign::cli {

// The labelled pairs of `path` (addr1<TAB>addr2<TAB>label), normalized by `model`, for
// dedup's and link's --eval. Labels: 2 / exact_match = one place and 0 / not_match = not,
// 1 / partial_match left out (CCKS); or, in a file of numbers with no label above 1, 1 =
// one place (Shenzhen). Says on stderr, as `geoalign COMMAND`, how the labels were read.
// Throws Error naming the line of a bad row or an unknown label.
std::vector<dedup::LabelledPair> read_labelled_pairs(const std::string& path, const index::AddressModel& model,
                                                    const std::string& command);

}  // namespace geoalign::cli
