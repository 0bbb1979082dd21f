#include "geo/conll.h"

#include <algorithm>
#include <fstream>

#include "common/open_file.h"
#include "geoalign/error.h"
#include "text/utf8.h"

namespace geoalign::geo {

namespace {

// Each piece of a file token that splits takes its tag, B- on the first only; the labels
// are B- and I- kinds until the address ends (finish in read_conll).
void append_token(TaggedAddress& address, const std::string& token, ConllTag tag) {
  const std::u32string cps = text::decode_utf8(token);
  const std::size_t offset = address.text.size();
  address.text += cps;
  auto pieces = tokenize_address(cps);
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    pieces[p].start += offset;
    pieces[p].end += offset;
    address.labels.push_back(make_label(tag.tag, p == 0 && tag.begins ? LabelKind::kBegin : LabelKind::kInside));
    address.tokens.push_back(std::move(pieces[p]));
  }
}

}  // namespace

std::vector<TaggedAddress> read_conll(std::istream& in, const std::string& source_name) {
  std::vector<TaggedAddress> out;
  TaggedAddress current;
  std::string line;
  std::size_t line_number = 0;
  auto finish = [&] {
    if (!current.tokens.empty()) {
      // The elements as conlleval reads B-/I- tags (an I- of another tag than the open
      // element opens one), labelled with their ends.
      current.labels = labels_from_spans(spans_from_labels(current.labels), current.tokens.size());
      out.push_back(std::move(current));
    }
    current = TaggedAddress{};
  };
  auto read_line = [&] {
    ++line_number;
    const std::string where = source_name + ":" + std::to_string(line_number);
    if (const auto bad = text::find_invalid_utf8(line)) {
      throw Error(where + ": invalid UTF-8 at byte " + std::to_string(*bad + 1));
    }
    line.erase(std::min(line.size(), line.find_last_not_of(" \t") + 1));  // spaces after the tag
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) return finish();
    const auto split = line.find_last_of(" \t");
    if (split == std::string::npos || split < first) throw Error(where + ": expected \"token TAG\"");
    const std::string token = line.substr(first, line.find_last_not_of(" \t", split) + 1 - first);
    const auto tag = parse_conll_tag(std::string_view(line).substr(split + 1));
    if (!tag) throw Error(where + ": unknown tag \"" + line.substr(split + 1) + "\"");
    if (current.tokens.empty() && current.text.empty()) current.line = line_number;
    append_token(current, token, *tag);
  };
  // Lines end with LF, CR LF (or CR CR LF, a CR LF file written again in text mode), or a
  // lone CR, as old spreadsheet exports end them: there CR CR is a blank line between
  // addresses.
  std::string chunk;
  while (std::getline(in, chunk)) {
    while (!chunk.empty() && chunk.back() == '\r') chunk.pop_back();
    for (std::size_t begin = 0;;) {
      const std::size_t cr = chunk.find('\r', begin);
      line = chunk.substr(begin, cr == std::string::npos ? std::string::npos : cr - begin);
      read_line();
      if (cr == std::string::npos) break;
      begin = cr + 1;
    }
  }
  if (in.bad()) throw Error(source_name + ": read error after line " + std::to_string(line_number));
  finish();
  return out;
}

std::vector<TaggedAddress> read_conll_file(const std::string& path) {
  std::ifstream in = open_for_reading(path);
  auto data = read_conll(in, path);
  if (data.empty()) throw Error(path + " holds no tagged addresses");
  return data;
}

void SpanScores::add(const std::vector<TagSpan>& gold, const std::vector<TagSpan>& predicted) {
  for (const auto& g : gold) {
    ++overall_.gold;
    ++by_tag_[tag_name(g.tag)].gold;
  }
  for (const auto& p : predicted) {
    ++overall_.predicted;
    ++by_tag_[tag_name(p.tag)].predicted;
    if (std::find(gold.begin(), gold.end(), p) != gold.end()) {
      ++overall_.correct;
      ++by_tag_[tag_name(p.tag)].correct;
    }
  }
}

}  // namespace geoalign::geo
