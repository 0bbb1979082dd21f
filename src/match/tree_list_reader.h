#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "match/gbdt.h"

namespace geoalign::match {

// Where the "trees" array sits in a head file's text: [begin, end).
struct TreeListSpan {
  std::size_t begin = 0, end = 0;
};

// The trees of a head file in the form tools/train/train_match_head.py writes them,
// {..., "trees": [{"class": k, "nodes": [[feature, threshold, left, right, value], ...]},
// ...], ...}, read straight from the text into `trees`. A general JSON parser spent most
// of a match head's load (75-95 ms of the CLI's 0.37 s start) building and taking apart
// a document node for each of the shipped head's numbers.
//
// nullopt, with `trees` cleared, for any text outside that form: a tree with other
// members, an integer field written as anything but a plain integer in range, a number
// that is not JSON's, no or two "trees" members, malformed JSON around them. The caller
// then reads the file with the general parser, which names what is wrong. Where it
// returns the trees, they are what the general route builds from the same text
// (fuzz_tree_list checks this on arbitrary input). The rest of the text is left to the
// caller, which must still parse it as JSON.
std::optional<TreeListSpan> read_tree_list(std::string_view json, std::vector<GradientBoostedTrees::FileTree>& trees);

}  // namespace geoalign::match
