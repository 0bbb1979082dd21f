#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "geoalign/error.h"

namespace geoalign {

// A span of the input: one of the 21 element tags of Li et al. (NAACL 2019), such as
// "prov", "road", "roadno", "poi", "roomno". Offsets are Unicode code points.
struct AddressElement {
  std::string tag;
  std::string text;
  std::size_t start = 0, end = 0;
};

struct AdminDivision {
  std::string name;  // the gazetteer's full name: 北京市, 朝阳区
  std::string code;  // its administrative code
  bool inferred = false;  // true when the address does not name it: completed from below
};

// A division the address names by a name it no longer has: abolished, merged into another
// or renamed. 杭州市下城区 names 拱墅区 (下城区 was merged into it in 2021); 杭州市江干区
// names 上城区 or 钱塘区 (江干区 was split between them), and only a finer cue settles which.
struct HistoricalName {
  std::string level;  // the level of the chain it stands at: "city" or "district"
  std::string name;   // the former division's full name: 江干区
  std::string code;   // its code then: 330104
  int until = 0;      // the year it ceased to exist (docs/parsing.md: how exact)
  std::vector<std::string> now, now_codes;  // the current divisions in its place: 上城区, 钱塘区
  // Current divisions that took only a part of it (茂港区: 茂南区, which has its 羊角镇).
  std::vector<std::string> partly, partly_codes;
};

// An element of the address that ties a reading to one place: a name in it (西溪 in the POI
// 西溪水岸花苑) is a division (西溪街道) inside that reading, or one it lies in.
struct GuessEvidence {
  std::string tag, text;      // the element: poi, 西溪水岸花苑
  std::string division, code;  // the gazetteer division its name matched: 西溪街道, 330106004
};

// How the levels of an ambiguous chain were filled (ParseOptions::guess): the reading chosen
// among the candidates and on what grounds.
struct AdminGuess {
  // "elements": the address's other elements (a POI, a road, a company name) name a place
  // in or above exactly one reading more often than in any other; `evidence` lists them.
  // "prior": the reading the most addresses lie in, of those the parser's prior was counted
  // on (division_counts.tsv; where the readings themselves are not counted apart, their
  // parents'); `share` is its count over the counts compared together.
  // "size": no counts tell them apart: the reading with the most divisions under it.
  std::string by;
  std::string reading;              // the candidate chosen, as `AdminChain::candidates` writes it
  std::vector<std::string> filled;  // the levels the guess filled ("prov", "city", ...): those the readings do not share
  std::vector<GuessEvidence> evidence;  // by "elements"
  double share = 0;                     // by "prior"
};

// The administrative chain the address lies in, completed from the gazetteer. When the
// cues fit several places equally well (朝阳区 alone: Beijing or Changchun), `ambiguous`
// is set and `candidates` lists them. The levels then hold the most likely reading and
// `guess` says how it was chosen; with ParseOptions::guess off, only the levels all
// readings share are filled in and `guess` is empty.
// Levels are always current divisions: a former name (下城区) fills its level with its
// successor (拱墅区) and is noted in `historical`; one with several successors (江干区)
// leaves its level empty unless a finer cue (a town) picks one.
struct AdminChain {
  std::optional<AdminDivision> prov, city, district, town;
  std::string adcode;  // code of the deepest division resolved; empty if none
  bool ambiguous = false;
  std::vector<std::string> candidates;  // "code name/name/..." for each reading, when ambiguous
  std::vector<HistoricalName> historical;  // former names the address uses, coarsest level first
  std::optional<AdminGuess> guess;         // set when ambiguous and guessing
  // Province, city and district elements that name a division (or a former one) which the
  // resolved reading contradicts: 南京市鼓楼区瑞金路街道 resolves, through the street, to
  // 秦淮区, and lists 鼓楼区 here rather than dropping it silently. In an ambiguity, only
  // elements that no candidate explains. Empty for a consistent address.
  std::vector<AddressElement> conflicting;
};

struct ParseOptions {
  // Fill an ambiguous chain's levels with its most likely reading (AdminChain::guess).
  // false: leave them empty, as the match head's pair features expect.
  bool guess = true;
};

struct ParsedAddress {
  std::string text;
  std::vector<AddressElement> elements;
  AdminChain admin;
};

// Tags the elements of a Chinese address and completes its administrative levels. Loads a
// parser folder (tagger.bin, divisions.tsv, and where the folder has them historical.tsv:
// former divisions and their successors, and division_counts.tsv: how many addresses lie
// in each division, the prior of the guess); thread-safe.
class AddressParser {
 public:
  static AddressParser load(const std::filesystem::path& dir);
  // The folder it was loaded from.
  const std::filesystem::path& folder() const;
  AddressParser(AddressParser&&) noexcept;
  AddressParser& operator=(AddressParser&&) noexcept;
  ~AddressParser();

  // Code points parse() reads at most: a line of addresses pasted together fits (about
  // 0.2 s and 64 MB), and the tagger's work and memory grow with the text (3.5 million
  // characters took 11 s and 3.4 GB).
  static constexpr std::size_t kMaxChars = 1 << 16;
  // Blank text gives an empty parse. Throws Error (with the byte offset) on invalid UTF-8,
  // and for text over kMaxChars code points.
  ParsedAddress parse(std::string_view utf8, const ParseOptions& options = {}) const;
  // parse() from elements already tagged (stored by an index): each element's tag, start
  // and end (code points into `utf8`) are kept, its text is filled in, and the admin chain
  // is completed as parse() does. parse(t, o) == complete(t, parse(t, o).elements, o). Throws
  // Error for an unknown tag or a span outside the text.
  ParsedAddress complete(std::string_view utf8, std::vector<AddressElement> elements,
                         const ParseOptions& options = {}) const;

  // The provinces, cities and districts whose full or short name is `name`, each as its
  // chain, province first: 通州 gives 北京市 通州区 and 江苏省 南通市 通州区, 北京 gives 北京市.
  // Only today's divisions, and only a whole name: empty for 北京市通州 or 江干区.
  std::vector<std::vector<AdminDivision>> divisions_named(std::string_view name) const;

  struct Impl;

 private:
  explicit AddressParser(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A parse as `geoalign parse` prints it, one JSON object: {"text", "elements": [{"tag",
// "text", "start", "end"}], "admin": {"prov", "city", "district", "town", "adcode",
// "inferred", "ambiguous", ...}} (docs/parsing.md).
std::string to_json(const ParsedAddress& parsed);

// Where a model folder without a parser of its own finds the bundled one: for a program
// that ships it somewhere other than the build's models/default/parser (the Python
// package keeps it inside itself).
void set_bundled_parser_dir(const std::filesystem::path& dir);

}  // namespace geoalign
