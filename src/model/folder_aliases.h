#pragma once

#include <filesystem>
#include <memory>

#include "text/aliases.h"

namespace geoalign::model {

// The names a model folder reconciles in a pair (text/aliases.h): the folder's own
// aliases.tsv merged with `user_file` (--aliases), either of which may be absent. Null
// when there is neither, so a folder without a table (an MGeo checkpoint) reads pairs
// exactly as its reference does unless the user asks. Throws Error naming the file and
// line of a bad entry, or a `user_file` that does not exist.
std::shared_ptr<const text::AliasTable> load_folder_aliases(const std::filesystem::path& model_dir,
                                                            const std::filesystem::path& user_file = {});

}  // namespace geoalign::model
