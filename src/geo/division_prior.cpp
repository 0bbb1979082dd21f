#include "geo/division_prior.h"

#include <charconv>
#include <fstream>
#include <string_view>
#include <unordered_map>

#include "common/open_file.h"
#include "geo/table_lines.h"
#include "geoalign/error.h"

namespace geoalign::geo {

DivisionPrior::DivisionPrior(const Gazetteer& gazetteer)
    : counts_(gazetteer.divisions().size(), 0), sizes_(gazetteer.divisions().size(), 0) {
  for (const Division& d : gazetteer.divisions()) {
    for (std::int32_t up = d.parent; up >= 0; up = gazetteer.division(up).parent) ++sizes_[static_cast<std::size_t>(up)];
  }
}

DivisionPrior DivisionPrior::load(const std::filesystem::path& tsv, const Gazetteer& gazetteer) {
  std::ifstream in = open_for_reading(tsv, "division counts");
  return parse(in, tsv.string(), gazetteer);
}

DivisionPrior DivisionPrior::parse(std::istream& in, const std::string& source_name, const Gazetteer& gazetteer) {
  std::unordered_map<std::string_view, std::int32_t> index_of_code;
  index_of_code.reserve(gazetteer.divisions().size());
  for (std::size_t i = 0; i < gazetteer.divisions().size(); ++i) {
    index_of_code.emplace(gazetteer.divisions()[i].code, static_cast<std::int32_t>(i));
  }
  DivisionPrior prior(gazetteer);
  std::vector<bool> seen(gazetteer.divisions().size(), false);
  for_each_table_line(in, source_name, [&](std::string_view line, std::size_t line_number) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      throw Error(table_place(source_name, line_number) + ": expected code<TAB>count");
    }
    const std::string_view code = line.substr(0, tab), count = line.substr(tab + 1);
    const auto it = index_of_code.find(code);
    if (it == index_of_code.end()) {
      throw Error(table_place(source_name, line_number) + ": " + std::string(code) + " is not a division of the gazetteer");
    }
    const auto index = static_cast<std::size_t>(it->second);
    if (seen[index]) throw Error(table_place(source_name, line_number) + ": duplicate code " + std::string(code));
    seen[index] = true;
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), value);
    if (count.empty() || ec != std::errc() || end != count.data() + count.size()) {
      throw Error(table_place(source_name, line_number) + ": count \"" + std::string(count) +
                  "\" is not a non-negative integer");
    }
    prior.counts_[index] = value;
    prior.has_counts_ = true;
  });
  return prior;
}

}  // namespace geoalign::geo
