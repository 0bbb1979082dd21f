#include "model/folder_aliases.h"

#include "geoalign/error.h"

namespace geoalign::model {

std::shared_ptr<const text::AliasTable> load_folder_aliases(const std::filesystem::path& model_dir,
                                                            const std::filesystem::path& user_file) {
  const auto own = model_dir / text::AliasTable::kFileName;
  const bool has_own = std::filesystem::exists(own);
  if (!has_own && user_file.empty()) return nullptr;
  text::AliasTable table = has_own ? text::AliasTable::load(own) : text::AliasTable{};
  if (!user_file.empty()) {
    if (!std::filesystem::is_regular_file(user_file)) throw Error("alias file " + user_file.string() + " does not exist");
    table.merge(text::AliasTable::load(user_file));
  }
  return std::make_shared<const text::AliasTable>(std::move(table));
}

}  // namespace geoalign::model
