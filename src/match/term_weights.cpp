#include "match/term_weights.h"

#include <charconv>
#include <cmath>
#include <set>
#include <string>

#include "geoalign/error.h"
#include "match/string_measures.h"
#include "model/json_file.h"
#include "text/utf8.h"

namespace geoalign::match {

namespace {

bool parse_count(std::string_view field, double& out) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) return false;
  out = static_cast<double>(value);
  return true;
}

}  // namespace

TermWeights TermWeights::parse(std::string_view text, const std::string& source_name) {
  TermWeights weights;
  double documents = -1;
  std::size_t line_number = 0;
  auto at_line = [&] { return source_name + ":" + std::to_string(line_number); };
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      throw Error(at_line() + ": expected gram<TAB>count");
    }
    const std::string_view gram = line.substr(0, tab);
    double count = 0;
    if (!parse_count(line.substr(tab + 1), count)) throw Error(at_line() + ": count is not a whole number");
    if (line_number == 1) {
      if (gram != "documents" || count < 1) throw Error(at_line() + ": expected documents<TAB>N (N >= 1) first");
      documents = count;
      weights.unseen_ = static_cast<float>(std::log(documents + 1));
      continue;
    }
    if (const auto bad = text::find_invalid_utf8(gram)) {
      throw Error(at_line() + ": invalid UTF-8 at byte " + std::to_string(*bad + 1));
    }
    const std::u32string g = text::decode_utf8(gram);
    if (g.empty() || g.size() > 2) throw Error(at_line() + ": a gram is one or two characters");
    if (count > documents) throw Error(at_line() + ": count exceeds the number of documents");
    const std::uint64_t k = g.size() == 1 ? key(g[0]) : key(g[0], g[1]);
    const float idf = static_cast<float>(std::log((documents + 1) / (count + 1)));
    if (!weights.idf_.emplace(k, idf).second) throw Error(at_line() + ": gram listed twice");
  }
  if (documents < 0) throw Error(source_name + ": empty (expected documents<TAB>N first)");
  return weights;
}

TermWeights TermWeights::load(const std::filesystem::path& file) {
  return parse(model::read_whole_file(file), file.string());
}

void TermCounter::add_document(std::string_view utf8) {
  const std::u32string s = folded(utf8);
  std::set<std::u32string> grams;
  for (std::size_t i = 0; i < s.size(); ++i) {
    grams.insert(s.substr(i, 1));
    if (i + 1 < s.size()) grams.insert(s.substr(i, 2));
  }
  for (const auto& g : grams) ++counts_[g];
  ++documents_;
}

void TermCounter::write(std::ostream& out, std::uint64_t min_bigram_count) const {
  out << "documents\t" << documents_ << '\n';
  for (const auto& [gram, count] : counts_) {
    // Tabs and line breaks would break the file's lines; they carry no place anyway.
    if (gram.find_first_of(U"\t\n\r") != std::u32string::npos) continue;
    if (gram.size() == 2 && count < min_bigram_count) continue;
    out << text::encode_utf8(gram) << '\t' << count << '\n';
  }
}

}  // namespace geoalign::match
