#include "geo/tagger_features.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_set>

#include "backend/cpu/rank.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace geoalign::geo {

namespace {

// FNV-1a, seeded by the template so that equal strings in different templates differ.
class FeatureHash {
 public:
  explicit FeatureHash(std::uint8_t template_id) { byte(template_id); }
  FeatureHash& add(std::string_view s) {
    for (const char c : s) byte(static_cast<std::uint8_t>(c));
    byte(0x1F);
    return *this;
  }
  FeatureHash& add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  std::uint64_t value() const { return h_; }

 private:
  void byte(std::uint8_t b) {
    h_ ^= b;
    h_ *= 0x100000001b3ULL;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

enum Template : std::uint8_t {
  kBias, kWord, kBigram, kTrigram, kClasses, kNextKeyword, kPrevKeyword,
  kGazetteer, kGazetteerLongest, kGazetteerRepeat, kEdge, kKeywordPair,
};

constexpr std::u32string_view kChineseNumerals = U"零〇一二三四五六七八九十百千两";
// Characters that end or mark address elements; the distance to the nearest one on each
// side tells the tagger where in an element a character sits.
constexpr std::u32string_view kKeywords =
    U"省市区县镇乡街道路巷弄里号栋幢座楼层室单元村组社苑园庄院厦场城湾坊寓舍门铺店司厂站馆校部";

constexpr std::size_t kKeywordReach = 8;

bool is_keyword(char32_t c) { return c != 0 && kKeywords.find(c) != std::u32string_view::npos; }

// What a token contributes to n-grams: digits and letters by their length, not their
// value, so unseen house numbers look like seen ones.
std::string token_key(const AddressToken& t) {
  const char first = t.text[0];
  if (first >= '0' && first <= '9') return "#D" + std::to_string(std::min<std::size_t>(t.text.size(), 5));
  if ((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')) return t.text.size() == 1 ? "#L1" : "#L+";
  return t.text;
}

// `single` is the token's code point when it has exactly one, else 0.
char token_class(const AddressToken& t, char32_t single) {
  const char first = t.text[0];
  if (first >= '0' && first <= '9') return 'D';
  if ((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')) return 'L';
  if (single == 0) return 'O';
  if (kChineseNumerals.find(single) != std::u32string_view::npos) return 'N';
  if (text::unicode::is_cjk_ideograph(single)) return 'C';
  if (text::unicode::is_punctuation(single)) return 'P';
  return 'O';
}

struct GazetteerMatch {
  std::size_t begin = 0, end = 0;
  std::span<const std::int32_t> divisions;
  // Bit 2 * level + full: which levels the text names, by full or by short name.
  std::uint8_t kinds = 0;
};

std::vector<GazetteerMatch> find_matches(const std::u32string& chars, const Gazetteer& gazetteer,
                                         const HistoricalDivisions* historical) {
  std::vector<GazetteerMatch> matches;
  matches.reserve(chars.size());
  for (std::size_t s = 0; s < chars.size(); ++s) {
    if (chars[s] == 0) continue;
    const std::size_t first = matches.size();
    gazetteer.prefixes(std::u32string_view(chars).substr(s), [&](std::size_t length, std::span<const std::int32_t> d) {
      if (length < 2) return;
      GazetteerMatch m{s, s + length, d, 0};
      for (const auto index : d) {
        const Division& division = gazetteer.division(index);
        const bool full = division.name_length == length;
        m.kinds = static_cast<std::uint8_t>(m.kinds | (1u << (2 * static_cast<unsigned>(division.level) + full)));
      }
      matches.push_back(m);
    });
    if (!historical) continue;
    // A former full name adds its level to a current match of the same span, or is a
    // match of its own (with no current divisions), kept in order of length.
    historical->full_name_prefixes(std::u32string_view(chars).substr(s), [&](std::size_t length, std::span<const std::int32_t> f) {
      if (length < 2) return;
      std::uint8_t kinds = 0;
      for (const auto index : f) kinds = static_cast<std::uint8_t>(kinds | (1u << (2 * static_cast<unsigned>(historical->division(index).level) + 1)));
      auto at = matches.begin() + static_cast<std::ptrdiff_t>(first);
      while (at != matches.end() && at->end < s + length) ++at;
      if (at != matches.end() && at->end == s + length) {
        at->kinds = static_cast<std::uint8_t>(at->kinds | kinds);
      } else {
        matches.insert(at, GazetteerMatch{s, s + length, {}, kinds});
      }
    });
  }
  return matches;
}

// Whether match m names again a place an earlier match already named: the same text, or
// a division at or above one named before ("杭州市余杭区...杭州市余杭区", "浙江杭州...杭州").
// Names shared by many places (城关镇) are left to the text comparison. An earlier match
// counts once it has ended where m begins; what those matches named is kept in sets, so
// that a long text (a line of addresses pasted together) costs time in proportion to it.
std::vector<bool> find_repeats(const std::vector<GazetteerMatch>& matches, const std::u32string& chars,
                               const Gazetteer& gazetteer) {
  constexpr std::size_t kMaxDivisionsCompared = 4;
  std::vector<bool> repeats(matches.size(), false);
  auto text_of = [&](const GazetteerMatch& m) {
    return std::u32string_view(chars).substr(m.begin, m.end - m.begin);
  };
  std::unordered_set<std::u32string_view> texts_named;
  std::unordered_set<std::int32_t> divisions_named;  // and every division above them
  // Earlier matches not yet ended, soonest end first (matches come in order of begin).
  using Pending = std::pair<std::size_t, std::size_t>;  // end, match
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  for (std::size_t m = 0; m < matches.size(); ++m) {
    while (!pending.empty() && pending.top().first <= matches[m].begin) {
      const GazetteerMatch& e = matches[pending.top().second];
      pending.pop();
      texts_named.insert(text_of(e));
      if (e.divisions.size() > kMaxDivisionsCompared) continue;
      for (const auto d : e.divisions) {
        for (std::int32_t a = d; a >= 0 && divisions_named.insert(a).second; a = gazetteer.division(a).parent) {
        }
      }
    }
    repeats[m] = texts_named.count(text_of(matches[m])) > 0 ||
                 (matches[m].divisions.size() <= kMaxDivisionsCompared &&
                  std::any_of(matches[m].divisions.begin(), matches[m].divisions.end(),
                              [&](std::int32_t d) { return divisions_named.count(d) > 0; }));
    pending.emplace(matches[m].end, m);
  }
  return repeats;
}

// Where token i sits in match m, as an index into kPositions: begin, inside or end.
constexpr char kPositions[] = {'B', 'I', 'E'};
int position_in(const GazetteerMatch& m, std::size_t i) { return i == m.begin ? 0 : i + 1 == m.end ? 2 : 1; }

// The hash states every address reaches the same way: a template with its window offset
// (the offset's eight bytes cost more than the key after them), and the gazetteer
// features, which have no text of their own. Hashing resumes from these, so the ids are
// exactly those of hashing the whole feature.
struct HashPrefixes {
  FeatureHash word[5], bigram[4], trigram[3];
  std::uint64_t bias, edge[4];
  std::uint64_t gazetteer[kNumAdminLevels][3][2], repeat[kNumAdminLevels][3], longest[kNumAdminLevels][3];

  HashPrefixes()
      : word{FeatureHash(kWord), FeatureHash(kWord), FeatureHash(kWord), FeatureHash(kWord), FeatureHash(kWord)},
        bigram{FeatureHash(kBigram), FeatureHash(kBigram), FeatureHash(kBigram), FeatureHash(kBigram)},
        trigram{FeatureHash(kTrigram), FeatureHash(kTrigram), FeatureHash(kTrigram)} {
    for (std::uint64_t o = 0; o < 5; ++o) word[o].add(o);
    for (std::uint64_t o = 0; o < 4; ++o) bigram[o].add(o);
    for (std::uint64_t o = 0; o < 3; ++o) trigram[o].add(o);
    bias = FeatureHash(kBias).value();
    for (std::uint64_t e = 0; e < 4; ++e) edge[e] = FeatureHash(kEdge).add(e).value();
    for (unsigned level = 0; level < kNumAdminLevels; ++level) {
      const char* name = admin_level_name(static_cast<AdminLevel>(level));
      for (int p = 0; p < 3; ++p) {
        const std::string position(1, kPositions[p]);
        for (std::uint64_t full = 0; full < 2; ++full) {
          gazetteer[level][p][full] = FeatureHash(kGazetteer).add(name).add(position).add(full).value();
        }
        repeat[level][p] = FeatureHash(kGazetteerRepeat).add(name).add(position).value();
        longest[level][p] = FeatureHash(kGazetteerLongest).add(name).add(position).value();
      }
    }
  }
};

// Appends ids to out sorted and without repeats, as std::sort and std::unique would leave
// them (emissions sum the weights in this order).
void append_sorted_unique(const std::vector<std::uint64_t>& ids, std::vector<std::uint64_t>& out) {
  const std::size_t first = out.size();
  out.insert(out.end(), ids.begin(), ids.end());
  out.resize(first + cpu::sort_distinct(out.data() + first, ids.size(), nullptr));
}

}  // namespace

TokenFeatures extract_features(const std::vector<AddressToken>& tokens, const Gazetteer& gazetteer,
                               const HistoricalDivisions* historical) {
  const std::size_t n = tokens.size();
  std::vector<std::string> keys(n);
  std::string classes(n, 'O');
  std::u32string chars(n, 0);  // one code point per single-character token, 0 elsewhere
  std::vector<char> keyword(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::u32string cps = text::decode_utf8(tokens[i].text);
    if (cps.size() == 1) chars[i] = cps[0];
    keys[i] = token_key(tokens[i]);
    classes[i] = token_class(tokens[i], chars[i]);
    keyword[i] = is_keyword(chars[i]);
  }
  auto key = [&](std::ptrdiff_t i) -> std::string_view {
    if (i < 0) return "<s>";
    if (i >= static_cast<std::ptrdiff_t>(n)) return "</s>";
    return keys[static_cast<std::size_t>(i)];
  };
  auto cls = [&](std::ptrdiff_t i) -> std::string_view {
    if (i < 0 || i >= static_cast<std::ptrdiff_t>(n)) return "_";
    return std::string_view(classes).substr(static_cast<std::size_t>(i), 1);
  };

  if (historical && historical->empty()) historical = nullptr;
  const auto matches = find_matches(chars, gazetteer, historical);
  const auto repeats = find_repeats(matches, chars, gazetteer);
  // The matches over each token, in match order: covering[covering_begin[u]...].
  std::vector<std::size_t> covering_begin(n + 1, 0), covering;
  for (const auto& m : matches) {
    for (std::size_t u = m.begin; u < m.end; ++u) ++covering_begin[u + 1];
  }
  for (std::size_t u = 0; u < n; ++u) covering_begin[u + 1] += covering_begin[u];
  covering.resize(covering_begin[n]);
  {
    std::vector<std::size_t> filled(covering_begin.begin(), covering_begin.end() - 1);
    for (std::size_t m = 0; m < matches.size(); ++m) {
      for (std::size_t u = matches[m].begin; u < matches[m].end; ++u) covering[filled[u]++] = m;
    }
  }

  static const HashPrefixes prefixes;
  TokenFeatures out;
  out.ids.reserve(n * 24);
  out.begin.reserve(n + 1);
  std::vector<std::uint64_t> ids;
  ids.reserve(cpu::kMaxRanked);  // a token has about twenty; growing to that took five allocations
  for (std::size_t u = 0; u < n; ++u) {
    const auto i = static_cast<std::ptrdiff_t>(u);
    ids.clear();
    ids.push_back(prefixes.bias);
    for (std::ptrdiff_t o = -2; o <= 2; ++o) ids.push_back(FeatureHash(prefixes.word[o + 2]).add(key(i + o)).value());
    for (std::ptrdiff_t o = -2; o <= 1; ++o) {
      ids.push_back(FeatureHash(prefixes.bigram[o + 2]).add(key(i + o)).add(key(i + o + 1)).value());
    }
    for (std::ptrdiff_t o = -2; o <= 0; ++o) {
      ids.push_back(FeatureHash(prefixes.trigram[o + 2]).add(key(i + o)).add(key(i + o + 1)).add(key(i + o + 2)).value());
    }
    ids.push_back(FeatureHash(kClasses).add(cls(i - 1)).add(cls(i)).add(cls(i + 1)).value());
    ids.push_back(prefixes.edge[std::uint64_t(u == 0) | (std::uint64_t(u + 1 == n) << 1)]);

    std::string_view next_keyword = "</s>", previous_keyword = "<s>";
    std::size_t next_distance = 0, previous_distance = 0;
    for (std::size_t d = 1; d <= kKeywordReach && u + d < n; ++d) {
      if (keyword[u + d]) {
        next_keyword = keys[u + d];
        next_distance = d;
        break;
      }
    }
    for (std::size_t d = 1; d <= kKeywordReach && d <= u; ++d) {
      if (keyword[u - d]) {
        previous_keyword = keys[u - d];
        previous_distance = d;
        break;
      }
    }
    ids.push_back(FeatureHash(kNextKeyword).add(next_keyword).add(std::uint64_t(next_distance)).value());
    ids.push_back(FeatureHash(kPrevKeyword).add(previous_keyword).add(std::uint64_t(previous_distance)).value());
    ids.push_back(FeatureHash(kKeywordPair).add(previous_keyword).add(key(i)).add(next_keyword).value());

    const GazetteerMatch* longest = nullptr;
    for (std::size_t c = covering_begin[u]; c < covering_begin[u + 1]; ++c) {
      const std::size_t m = covering[c];
      const GazetteerMatch& match = matches[m];
      if (!longest || match.end - match.begin > longest->end - longest->begin) longest = &match;
      const int position = position_in(match, u);
      for (unsigned level = 0; level < kNumAdminLevels; ++level) {
        for (unsigned full = 0; full < 2; ++full) {
          if (!(match.kinds & (1u << (2 * level + full)))) continue;
          ids.push_back(prefixes.gazetteer[level][position][full]);
          if (repeats[m]) ids.push_back(prefixes.repeat[level][position]);
        }
      }
    }
    if (longest) {
      for (unsigned level = 0; level < kNumAdminLevels; ++level) {
        if (!(longest->kinds & (3u << (2 * level)))) continue;
        ids.push_back(prefixes.longest[level][position_in(*longest, u)]);
      }
    }
    append_sorted_unique(ids, out.ids);
    out.begin.push_back(static_cast<std::uint32_t>(out.ids.size()));
  }
  return out;
}

}  // namespace geoalign::geo
