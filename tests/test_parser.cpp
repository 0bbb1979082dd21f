// The address parser: tokens, tags, gazetteer, tagger training and decoding, admin
// completion, and the shipped parser on hand-checked addresses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "backend/cpu/isa.h"
#include "geo/address_parser.h"
#include "geo/address_tokens.h"
#include "geo/admin_resolver.h"
#include "geo/chain_posteriors.h"
#include "geo/conll.h"
#include "geo/flat_u64_map.h"
#include "geo/gazetteer.h"
#include "geo/sequence_tagger.h"
#include "geo/parse_json.h"
#include "geo/tag_set.h"
#include "geo/tagger_eval.h"
#include "geo/tagger_training.h"
#include "geo/viterbi.h"
#include "geoalign/parser.h"
#include "serve/openapi.h"
#include "support/json_schema.h"
#include "support/temp_dir.h"
#include "text/utf8.h"

namespace geoalign::geo {
namespace {

using namespace geoalign::testing;

constexpr const char* kSmallGazetteer =
    "# code\tlevel\tname\tparent\n"
    "11\tprov\t北京市\t\n"
    "1101\tcity\t市辖区\t11\n"
    "110105\tdistrict\t朝阳区\t1101\n"
    "22\tprov\t吉林省\t\n"
    "2201\tcity\t长春市\t22\n"
    "220104\tdistrict\t朝阳区\t2201\n"
    "2224\tcity\t延边朝鲜族自治州\t22\n"
    "33\tprov\t浙江省\t\n"
    "3301\tcity\t杭州市\t33\n"
    "330110\tdistrict\t余杭区\t3301\n"
    "330110005\ttown\t五常街道\t330110\n"
    "45\tprov\t广西壮族自治区\t\n";

Gazetteer small_gazetteer() {
  std::istringstream in(kSmallGazetteer);
  return Gazetteer::parse(in, "small.tsv");
}

std::vector<std::string> texts(const std::vector<AddressToken>& tokens) {
  std::vector<std::string> out;
  for (const auto& t : tokens) out.push_back(t.text);
  return out;
}

// The parser's hash map against std::map: growth through rehashes, duplicate inserts,
// misses, the two keys that are easy to get wrong (0, and ~0, which marks free slots),
// and bulk lookups through home slots.
TEST(FlatU64Map, AgreesWithAnOrderedMap) {
  std::mt19937_64 rng(5);
  FlatU64Map<std::uint32_t> map;
  std::map<std::uint64_t, std::uint32_t> want;
  std::vector<std::uint64_t> keys = {0, ~std::uint64_t{0}, 1};
  for (int i = 0; i < 5000; ++i) keys.push_back(rng() % 20000);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto [value, added] = map.emplace(keys[i], static_cast<std::uint32_t>(i));
    const auto [it, want_added] = want.emplace(keys[i], static_cast<std::uint32_t>(i));
    EXPECT_EQ(added, want_added);
    EXPECT_EQ(*value, it->second);
  }
  EXPECT_EQ(map.size(), want.size());
  for (std::uint64_t key = 0; key < 20000; ++key) {
    const std::uint32_t* got = map.find(key);
    const auto it = want.find(key);
    ASSERT_EQ(got != nullptr, it != want.end()) << key;
    if (got) {
      EXPECT_EQ(*got, it->second);
    }
    EXPECT_EQ(map.find_from(key, map.home(key)), got);
  }
  ASSERT_NE(map.find(~std::uint64_t{0}), nullptr);
  EXPECT_EQ(*map.find(~std::uint64_t{0}), 1u);
  EXPECT_EQ(map.find(~std::uint64_t{0} - 1), nullptr);
  std::map<std::uint64_t, std::uint32_t> visited;
  map.for_each([&](std::uint64_t key, std::uint32_t value) { EXPECT_TRUE(visited.emplace(key, value).second); });
  EXPECT_EQ(visited, want);
}

// Erasing (clustering folds one cluster's links into another's): entries moved back over
// a hole must stay findable, across wrap-around at the table's end and through rehashes.
TEST(FlatU64Map, EraseAgreesWithAnOrderedMap) {
  std::mt19937_64 rng(11);
  FlatU64Map<std::uint32_t> map;
  std::map<std::uint64_t, std::uint32_t> want;
  for (int i = 0; i < 60000; ++i) {
    // Few distinct keys, so runs collide and wrap; 0 and ~0 among them.
    const std::uint64_t key = i % 97 == 0 ? ~std::uint64_t{0} : rng() % 3000;
    if (rng() % 3 == 0) {
      EXPECT_EQ(map.erase(key), want.erase(key) == 1) << key;
    } else {
      map.emplace(key, static_cast<std::uint32_t>(i));
      want.emplace(key, static_cast<std::uint32_t>(i));
    }
    if (i % 5000 == 0) {
      for (std::uint64_t k = 0; k < 3000; ++k) {
        const std::uint32_t* got = map.find(k);
        const auto it = want.find(k);
        ASSERT_EQ(got != nullptr, it != want.end()) << k;
        if (got) {
          ASSERT_EQ(*got, it->second);
        }
      }
    }
  }
  EXPECT_EQ(map.size(), want.size());
  std::map<std::uint64_t, std::uint32_t> visited;
  map.for_each([&](std::uint64_t key, std::uint32_t value) { visited.emplace(key, value); });
  EXPECT_EQ(visited, want);
}

TEST(AddressTokens, DigitAndLetterRunsStayWholeAndOffsetsAreCodePoints) {
  const auto tokens = tokenize_address(text::decode_utf8("ＡＢ12号 楼3-5室"));
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"AB", "12", "号", "楼", "3", "-", "5", "室"}));
  EXPECT_EQ(tokens[0].start, 0u);
  EXPECT_EQ(tokens[0].end, 2u);
  EXPECT_EQ(tokens[3].start, 6u);  // the space at 5 is skipped
  EXPECT_EQ(tokens.back().end, 11u);
}

TEST(TagSet, ConllTagsParseCaseInsensitively) {
  const auto devzone = parse_conll_tag("B-devZone"), subroadno = parse_conll_tag("I-subRoadno");
  ASSERT_TRUE(devzone && subroadno);
  EXPECT_EQ(devzone->tag, *tag_index("devzone"));
  EXPECT_TRUE(devzone->begins);
  EXPECT_EQ(subroadno->tag, *tag_index("subroadno"));
  EXPECT_FALSE(subroadno->begins);
  EXPECT_FALSE(parse_conll_tag("O"));
  EXPECT_FALSE(parse_conll_tag("B-street"));
  EXPECT_FALSE(parse_conll_tag("X-road"));
  EXPECT_FALSE(parse_conll_tag("E-road"));  // the data's tags are B- and I- only
}

TEST(TagSet, SpansFollowConllevalAndEndWhereALabelCloses) {
  const auto road = *tag_index("road"), poi = *tag_index("poi");
  auto label = [](std::size_t tag, LabelKind kind) { return make_label(tag, kind); };
  using K = LabelKind;
  // An I- of another tag opens an element; so does an I- after an E-.
  const std::vector<Label> lenient = {label(road, K::kBegin), label(road, K::kInside), label(poi, K::kInside),
                                      label(poi, K::kEnd), label(poi, K::kInside), label(poi, K::kSingle)};
  const std::vector<TagSpan> expected = {{road, 0, 2}, {poi, 2, 4}, {poi, 4, 5}, {poi, 5, 6}};
  EXPECT_EQ(spans_from_labels(lenient), expected);
  // Well-formed labels and spans convert into each other.
  const std::vector<TagSpan> spans = {{road, 0, 3}, {poi, 3, 4}, {poi, 4, 6}};
  const std::vector<Label> labels = labels_from_spans(spans, 6);
  EXPECT_EQ(labels, (std::vector<Label>{label(road, K::kBegin), label(road, K::kInside), label(road, K::kEnd),
                                        label(poi, K::kSingle), label(poi, K::kBegin), label(poi, K::kEnd)}));
  EXPECT_EQ(spans_from_labels(labels), spans);
  EXPECT_TRUE(transition_allowed(std::nullopt, labels[0]));
  for (std::size_t i = 1; i < labels.size(); ++i) EXPECT_TRUE(transition_allowed(labels[i - 1], labels[i])) << i;
  EXPECT_TRUE(may_end(labels.back()));
  EXPECT_FALSE(may_end(labels[0]));
  EXPECT_FALSE(transition_allowed(labels[2], labels[1]));  // I- after an E-
  EXPECT_FALSE(transition_allowed(labels[0], labels[3]));  // S- before the element closed
}

TEST(Gazetteer, FullAndShortNamesAndPlaceholders) {
  const Gazetteer g = small_gazetteer();
  auto codes = [&](std::u32string_view name) {
    std::vector<std::string> out;
    for (const auto d : g.lookup(name)) out.push_back(g.division(d).code);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(codes(U"北京"), std::vector<std::string>{"11"});
  EXPECT_EQ(codes(U"北京市"), std::vector<std::string>{"11"});
  EXPECT_EQ(codes(U"朝阳"), (std::vector<std::string>{"110105", "220104"}));
  EXPECT_EQ(codes(U"广西"), std::vector<std::string>{"45"});
  EXPECT_EQ(codes(U"延边"), std::vector<std::string>{"2224"});
  EXPECT_EQ(codes(U"五常"), std::vector<std::string>{"330110005"});
  EXPECT_TRUE(codes(U"市辖区").empty());
  EXPECT_TRUE(codes(U"北").empty());
  const auto chain = g.chain(g.lookup(U"五常街道")[0]);
  ASSERT_EQ(chain.size(), 4u);
  EXPECT_EQ(g.division(chain[0]).name, "浙江省");
}

TEST(Gazetteer, ShortNamesNeverDropBelowTwoCharacters) {
  EXPECT_TRUE(short_names(U"泾县", AdminLevel::District).empty());
  EXPECT_EQ(short_names(U"黔东南苗族侗族自治州", AdminLevel::City), std::vector<std::u32string>{U"黔东南"});
  EXPECT_EQ(short_names(U"新疆维吾尔自治区", AdminLevel::Prov), std::vector<std::u32string>{U"新疆"});
}

void expect_gazetteer_error(const std::string& tsv, const std::string& fragment) {
  std::istringstream in(tsv);
  try {
    Gazetteer::parse(in, "g.tsv");
    FAIL() << "accepted: " << tsv;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Gazetteer, MalformedRowsNameTheLine) {
  expect_gazetteer_error("11\tprov\t北京市\t\n12\tstate\t天津市\t\n", "g.tsv:2: unknown level");
  expect_gazetteer_error("11\tprov\t北京市\t\n1101\tcity\t市辖区\t99\n", "g.tsv:2: parent_code 99");
  expect_gazetteer_error("11\tprov\t北京市\t\n11\tprov\t天津市\t\n", "g.tsv:2: duplicate code");
  expect_gazetteer_error("11\tprov\t北\xff\t\n", "g.tsv:1: invalid UTF-8");
  expect_gazetteer_error("11 prov\n", "g.tsv:1: expected");
  expect_gazetteer_error("11\tprov\t北京市\t\textra\n", "g.tsv:1: expected");
  expect_gazetteer_error("11\tprov\n", "g.tsv:1: expected");
  expect_gazetteer_error("110105\tdistrict\t朝阳区\t\n", "g.tsv:1: provinces");
  expect_gazetteer_error("# only a comment\n", "no divisions");
}

// Every allowed label sequence of length 3, scored directly.
std::vector<Label> brute_force(const std::vector<float>& emissions, const std::vector<float>& transitions) {
  constexpr std::size_t L = kNumLabels;
  float best = -1e30f;
  std::vector<Label> best_labels;
  for (std::size_t a = 0; a < L; ++a) {
    for (std::size_t b = 0; b < L; ++b) {
      for (std::size_t c = 0; c < L; ++c) {
        const std::vector<Label> y = {Label(a), Label(b), Label(c)};
        if (!transition_allowed(std::nullopt, y[0]) || !transition_allowed(y[0], y[1]) ||
            !transition_allowed(y[1], y[2]) || !may_end(y[2])) {
          continue;
        }
        float s = transitions[L * L + a] + emissions[a];
        s += transitions[a * L + b] + emissions[L + b];
        s += transitions[b * L + c] + emissions[2 * L + c];
        if (s > best) {
          best = s;
          best_labels = y;
        }
      }
    }
  }
  return best_labels;
}

TEST(Viterbi, FindsTheBestWellFormedSequence) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<float> emissions(3 * kNumLabels), transitions((kNumLabels + 1) * kNumLabels);
    for (auto& e : emissions) e = noise(rng);
    for (auto& t : transitions) t = noise(rng);
    // Tempt it with an ill-formed start and an ill-formed end.
    emissions[make_label(3, LabelKind::kInside)] = 50.0f;
    emissions[2 * kNumLabels + make_label(5, LabelKind::kBegin)] = 50.0f;
    EXPECT_EQ(viterbi(emissions, transitions), brute_force(emissions, transitions)) << "trial " << trial;
  }
}

// The textbook recursion, one label and one predecessor at a time; among equal scores the
// lowest predecessor wins.
std::vector<Label> plain_viterbi(const std::vector<float>& emissions, const std::vector<float>& transitions) {
  constexpr std::size_t L = kNumLabels;
  const float impossible = -std::numeric_limits<float>::infinity();
  const std::size_t n = emissions.size() / L;
  std::vector<float> score(n * L, impossible);
  std::vector<Label> back(n * L, 0);
  for (std::size_t y = 0; y < L; ++y) {
    if (transition_allowed(std::nullopt, Label(y))) score[y] = transitions[L * L + y] + emissions[y];
  }
  for (std::size_t i = 1; i < n; ++i) {
    for (std::size_t y = 0; y < L; ++y) {
      float best = impossible;
      for (std::size_t x = 0; x < L; ++x) {
        if (!transition_allowed(Label(x), Label(y))) continue;
        const float s = score[(i - 1) * L + x] + transitions[x * L + y];
        if (s > best) {
          best = s;
          back[i * L + y] = Label(x);
        }
      }
      if (best != impossible) score[i * L + y] = best + emissions[i * L + y];
    }
  }
  std::vector<Label> labels(n);
  std::size_t last = L;
  for (std::size_t y = 0; y < L; ++y) {
    if (may_end(Label(y)) && (last == L || score[(n - 1) * L + y] > score[(n - 1) * L + last])) last = y;
  }
  labels[n - 1] = Label(last);
  for (std::size_t i = n - 1; i > 0; --i) labels[i - 1] = back[i * L + labels[i]];
  return labels;
}

TEST(Viterbi, MatchesThePlainRecursionOnEveryIsa) {
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(0.0f, 2.0f);
  std::uniform_int_distribution<int> coarse(-2, 2);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial) % 40;
    // Every third trial draws from a few values, so that paths tie.
    const bool ties = trial % 3 == 0;
    auto draw = [&] { return ties ? static_cast<float>(coarse(rng)) : noise(rng); };
    std::vector<float> emissions(n * kNumLabels), transitions((kNumLabels + 1) * kNumLabels);
    for (auto& e : emissions) e = draw();
    for (auto& t : transitions) t = draw();
    const auto want = plain_viterbi(emissions, transitions);
    for (cpu::Isa isa : {cpu::Isa::Baseline, cpu::Isa::Avx2, cpu::Isa::Avx512Bf16}) {
      cpu::limit_isa(isa);
      EXPECT_EQ(viterbi(emissions, transitions), want) << cpu::isa_name(cpu::active_isa()) << ", trial " << trial;
    }
    cpu::limit_isa(cpu::Isa::Avx512Bf16);  // back to what the CPU supports
  }
}

// Addresses built from a tiny grammar: province, city, district, road, number.
std::vector<TaggedAddress> synthetic_addresses(std::size_t count, std::uint32_t seed) {
  const std::vector<std::string> provinces = {"浙江省", "吉林省", "北京"}, cities = {"杭州市", "长春市", "延边"};
  const std::vector<std::string> districts = {"余杭区", "朝阳区"}, roads = {"文一西路", "建国路", "人民大街", "解放路"};
  std::mt19937 rng(seed);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  std::vector<TaggedAddress> out;
  for (std::size_t i = 0; i < count; ++i) {
    std::ostringstream conll;
    auto element = [&](const std::string& text, const char* tag) {
      const std::u32string cps = text::decode_utf8(text);
      for (std::size_t c = 0; c < cps.size(); ++c) {
        conll << text::encode_utf8(cps.substr(c, 1)) << (c == 0 ? " B-" : " I-") << tag << "\n";
      }
    };
    if (rng() % 2) element(pick(provinces), "prov");
    element(pick(cities), "city");
    element(pick(districts), "district");
    element(pick(roads), "road");
    conll << (rng() % 900 + 1) << " B-roadno\n号 I-roadno\n\n";
    std::istringstream in(conll.str());
    auto parsed = read_conll(in, "synthetic");
    out.insert(out.end(), parsed.begin(), parsed.end());
  }
  return out;
}

std::vector<TaggedSequence> featurize(const std::vector<TaggedAddress>& data, const Gazetteer& g) {
  std::vector<TaggedSequence> out;
  for (const auto& a : data) out.push_back({extract_features(a.tokens, g), a.labels});
  return out;
}

// Emissions add a token's weights in id order, so the order is part of the parse.
TEST(TaggerFeatures, EachTokensIdsAreSortedAndUnique) {
  const Gazetteer g = small_gazetteer();
  auto data = synthetic_addresses(50, 3);
  // Names matched twice and inside one another (朝阳区 in two provinces) give repeated
  // gazetteer features.
  std::istringstream extra("北 B-prov\n京 I-prov\n市 I-prov\n朝 B-district\n阳 I-district\n区 I-district\n"
                           "吉 B-prov\n林 I-prov\n朝 B-district\n阳 I-district\n区 I-district\n\n");
  const auto more = read_conll(extra, "extra");
  data.insert(data.end(), more.begin(), more.end());
  for (cpu::Isa isa : {cpu::Isa::Baseline, cpu::Isa::Avx2, cpu::Isa::Avx512Bf16}) {
    cpu::limit_isa(isa);
    for (const auto& sequence : featurize(data, g)) {
      const TokenFeatures& f = sequence.features;
      ASSERT_EQ(f.begin.size(), f.tokens() + 1);
      for (std::size_t t = 0; t < f.tokens(); ++t) {
        EXPECT_GE(f.begin[t + 1] - f.begin[t], 16u);
        for (std::size_t k = f.begin[t] + 1; k < f.begin[t + 1]; ++k) {
          EXPECT_LT(f.ids[k - 1], f.ids[k]) << cpu::isa_name(cpu::active_isa());
        }
      }
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);  // back to what the CPU supports
}

TEST(TaggerTraining, PerceptronLearnsAGrammarAndGeneralizesToUnseenAddresses) {
  const Gazetteer g = small_gazetteer();
  const auto train = synthetic_addresses(200, 1), test = synthetic_addresses(100, 2);
  int epochs_seen = 0;
  TaggerTrainingOptions options;
  options.algorithm = TaggerAlgorithm::kPerceptron;
  options.epochs = 4;
  options.on_epoch = [&](int, const SequenceTagger&) { ++epochs_seen; };
  const SequenceTagger tagger = train_tagger(featurize(train, g), options);
  EXPECT_EQ(epochs_seen, 4);
  EXPECT_GE(evaluate_tagger(test, g, tagger).overall().f1(), 0.99);
}

TEST(TaggerTraining, PerceptronIsDeterministicAndSurvivesSaveAndLoad) {
  const Gazetteer g = small_gazetteer();
  const auto data = featurize(synthetic_addresses(50, 3), g);
  TaggerTrainingOptions options;
  options.algorithm = TaggerAlgorithm::kPerceptron;
  options.epochs = 2;
  const SequenceTagger a = train_tagger(data, options), b = train_tagger(data, options);
  TempDir dir;
  a.save(dir / "a.bin");
  b.save(dir / "b.bin");
  EXPECT_EQ(read_file(dir / "a.bin"), read_file(dir / "b.bin"));
  const SequenceTagger loaded = SequenceTagger::load(dir / "a.bin");
  EXPECT_EQ(loaded.num_features(), a.num_features());
  EXPECT_EQ(loaded.num_weights(), a.num_weights());
  for (const auto& seq : data) EXPECT_EQ(loaded.emissions(seq.features), a.emissions(seq.features));
  loaded.save(dir / "again.bin");
  EXPECT_EQ(read_file(dir / "again.bin"), read_file(dir / "a.bin"));
}

TEST(TaggerTraining, CrfLearnsTheGrammarDeterministicallyAndPrunesSmallWeights) {
  const Gazetteer g = small_gazetteer();
  const auto train = featurize(synthetic_addresses(200, 1), g);
  const auto test = synthetic_addresses(100, 2);
  TaggerTrainingOptions options;  // the CRF, by default
  options.epochs = 4;
  const SequenceTagger a = train_tagger(train, options), b = train_tagger(train, options);
  EXPECT_GE(evaluate_tagger(test, g, a).overall().f1(), 0.99);
  TempDir dir;
  a.save(dir / "a.bin");
  b.save(dir / "b.bin");
  EXPECT_EQ(read_file(dir / "a.bin"), read_file(dir / "b.bin"));

  options.prune = 0.0;
  const SequenceTagger unpruned = train_tagger(train, options);
  EXPECT_GT(unpruned.num_weights(), a.num_weights());
  EXPECT_GE(evaluate_tagger(test, g, unpruned).overall().f1(), 0.99);

  options.learning_rate = 0.0;
  EXPECT_THROW(train_tagger(train, options), Error);
}

// Forward-backward against summing over every well-formed label sequence of three tokens
// (of the 84^3 sequences): the partition function, each token's label marginals and each
// pair's.
TEST(ChainPosteriors, EqualSumsOverEveryWellFormedSequence) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> score(-3.0f, 3.0f);
  constexpr std::size_t L = kNumLabels;
  for (const std::size_t n : {1u, 2u, 3u}) {
    std::vector<float> emissions(n * L), transitions((L + 1) * L);
    for (auto& e : emissions) e = score(rng);
    for (auto& t : transitions) t = score(rng);
    const ChainPosteriors posteriors(emissions, transitions);

    std::vector<double> label(n * L, 0.0), pair(n * L * L, 0.0);
    double z = 0.0;
    std::vector<Label> y(n, 0);
    for (std::size_t code = 0, total = static_cast<std::size_t>(std::pow(L, n)); code < total; ++code) {
      for (std::size_t t = 0, c = code; t < n; ++t, c /= L) y[t] = static_cast<Label>(c % L);
      bool well_formed = transition_allowed(std::nullopt, y[0]);
      double s = double(transitions[L * L + y[0]]) + double(emissions[y[0]]);
      well_formed = well_formed && may_end(y[n - 1]);
      for (std::size_t t = 1; t < n && well_formed; ++t) {
        well_formed = transition_allowed(y[t - 1], y[t]);
        s += double(transitions[std::size_t{y[t - 1]} * L + y[t]]) + double(emissions[t * L + y[t]]);
      }
      if (!well_formed) continue;
      const double w = std::exp(s);
      z += w;
      for (std::size_t t = 0; t < n; ++t) {
        label[t * L + y[t]] += w;
        if (t > 0) pair[(t * L + y[t - 1]) * L + y[t]] += w;
      }
    }
    EXPECT_NEAR(posteriors.log_partition(), std::log(z), 1e-9 * std::abs(std::log(z)));
    for (std::size_t t = 0; t < n; ++t) {
      double total = 0.0;
      for (std::size_t a = 0; a < L; ++a) {
        total += posteriors.label(t, static_cast<Label>(a));
        EXPECT_NEAR(posteriors.label(t, static_cast<Label>(a)), label[t * L + a] / z, 1e-12) << n << " " << t << " " << a;
        for (std::size_t b = 0; t > 0 && b < L; ++b) {
          EXPECT_NEAR(posteriors.transition(t, static_cast<Label>(a), static_cast<Label>(b)), pair[(t * L + a) * L + b] / z, 1e-12);
        }
      }
      EXPECT_NEAR(total, 1.0, 1e-12);
    }
  }
  EXPECT_THROW(ChainPosteriors({}, std::vector<float>((L + 1) * L)), Error);
}

// The tagger keeps only its lookup table after loading; saving rebuilds the file's
// layout from it, byte for byte.
TEST(SequenceTagger, SavingTheShippedTaggerReproducesItsFile) {
  const auto shipped = source_dir() / "models/default/parser" / kTaggerFile;
  TempDir dir;
  SequenceTagger::load(shipped).save(dir / "t.bin");
  EXPECT_EQ(read_file(dir / "t.bin"), read_file(shipped));
}

// Features voting for 2, 3, 5 (past the slot's inline weights), 12 and 42 labels (dense
// rows), and one that names a label twice, against adding each weight in turn.
TEST(SequenceTagger, EmissionsAreThePlainSumsOnEveryIsa) {
  std::mt19937_64 rng(5);  // 64-bit ids, spread over the presence bitmap
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<SequenceTagger::FeatureWeights> features;
  for (std::size_t size : {2u, 3u, 5u, 12u, 42u, 9u, 2u, 30u}) {
    SequenceTagger::FeatureWeights f;
    f.id = rng();
    std::vector<Label> labels(kNumLabels);
    std::iota(labels.begin(), labels.end(), Label{0});
    std::shuffle(labels.begin(), labels.end(), rng);
    for (std::size_t k = 0; k < size; ++k) f.weights.emplace_back(labels[k], noise(rng));
    features.push_back(f);
  }
  features.back().weights.emplace_back(features.back().weights.front().first, noise(rng));  // a label twice
  const std::vector<float> transitions((kNumLabels + 1) * kNumLabels, 0.0f);
  const SequenceTagger tagger(transitions, features);

  TokenFeatures tokens;
  std::vector<float> want;
  for (int t = 0; t < 6; ++t) {
    std::vector<float> row(kNumLabels, 0.0f);
    std::vector<std::uint64_t> ids;
    for (const auto& f : features) {
      if (rng() % 3 == 0) continue;
      ids.push_back(f.id);
    }
    ids.push_back(rng());  // unknown to the tagger
    std::sort(ids.begin(), ids.end());
    for (const std::uint64_t id : ids) {
      for (const auto& f : features) {
        if (f.id != id) continue;
        for (const auto& [label, weight] : f.weights) row[label] += weight;
      }
    }
    tokens.ids.insert(tokens.ids.end(), ids.begin(), ids.end());
    tokens.begin.push_back(static_cast<std::uint32_t>(tokens.ids.size()));
    want.insert(want.end(), row.begin(), row.end());
  }
  for (cpu::Isa isa : {cpu::Isa::Baseline, cpu::Isa::Avx2, cpu::Isa::Avx512Bf16}) {
    cpu::limit_isa(isa);
    EXPECT_EQ(tagger.emissions(tokens), want) << cpu::isa_name(cpu::active_isa());
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);  // back to what the CPU supports
}

// A slot counts a feature's weights in one byte.
TEST(SequenceTagger, AFeatureWithMoreThan255WeightsIsRejected) {
  SequenceTagger::FeatureWeights f;
  f.id = 7;
  for (int k = 0; k < 256; ++k) f.weights.emplace_back(static_cast<Label>(k % kNumLabels), 0.5f);
  const std::vector<float> transitions((kNumLabels + 1) * kNumLabels, 0.0f);
  try {
    SequenceTagger tagger(transitions, {f});
    FAIL() << "built a tagger with a 256-weight feature";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 255 weights"), std::string::npos) << e.what();
  }
  f.weights.pop_back();
  EXPECT_NO_THROW(SequenceTagger(transitions, {f}));
}

void expect_load_error(const std::string& contents, const std::string& fragment) {
  TempDir dir;
  write_file(dir / "t.bin", contents);
  try {
    SequenceTagger::load(dir / "t.bin");
    FAIL() << "loaded a damaged tagger";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(TaggerFile, DamagedFilesGiveClearErrors) {
  const Gazetteer g = small_gazetteer();
  TaggerTrainingOptions options;
  options.epochs = 1;
  TempDir dir;
  train_tagger(featurize(synthetic_addresses(20, 4), g), options).save(dir / "t.bin");
  const std::string good = read_file(dir / "t.bin");
  expect_load_error(good.substr(0, good.size() - 3), "truncated or corrupt");
  expect_load_error(good.substr(0, 10), "truncated (no header)");
  expect_load_error("NOTATAGGER" + good.substr(10), "not a geoalign tagger");
  std::string other_version = good;
  other_version[12] = 99;  // feature_version
  expect_load_error(other_version, "feature version 99");
  std::string bad_label = good;
  bad_label.back() = static_cast<char>(200);
  expect_load_error(bad_label, "label out of range");
  // A weight count whose implied size wraps around to the file's own.
  std::string huge_count = good;
  const std::uint64_t count = 3689348814743006604ull;
  std::memcpy(huge_count.data() + 24, &count, sizeof count);  // Header::num_weights
  expect_load_error(huge_count, "weights in a file of");
}

TEST(Conll, SplitTokensKeepTheirTagAndBadLinesNameTheirPlace) {
  std::istringstream in("12-3 B-houseno\n室 I-houseno\n\n\n杭 B-city\n州 I-city\n");
  const auto data = read_conll(in, "x.txt");
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(texts(data[0].tokens), (std::vector<std::string>{"12", "-", "3", "室"}));
  const auto house = *tag_index("houseno");
  EXPECT_EQ(data[0].labels,
            (std::vector<Label>{make_label(house, LabelKind::kBegin), make_label(house, LabelKind::kInside),
                                make_label(house, LabelKind::kInside), make_label(house, LabelKind::kEnd)}));
  EXPECT_EQ(data[1].labels, (std::vector<Label>{make_label(*tag_index("city"), LabelKind::kBegin),
                                                 make_label(*tag_index("city"), LabelKind::kEnd)}));
  EXPECT_EQ(data[1].line, 5u);
  std::istringstream bad("杭 B-city\n州 I-town-x\n");
  EXPECT_THROW(
      {
        try {
          read_conll(bad, "x.txt");
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("x.txt:2: unknown tag"), std::string::npos);
          throw;
        }
      },
      Error);
}

// Line ends as the address readers take them, and spaces after a tag.
TEST(Conll, LoneCarriageReturnsAndTrailingSpacesReadAsLinesAndNothing) {
  for (const std::string text : {"宁 B-city\r波 I-city\r\r金 B-city \r华 I-city\t\r",
                                 "宁 B-city\r\r\n波 I-city\r\n\r\n金 B-city\r\n华 I-city \n"}) {
    std::istringstream in(text);
    const auto data = read_conll(in, "x.txt");
    ASSERT_EQ(data.size(), 2u) << text;
    EXPECT_EQ(texts(data[0].tokens), (std::vector<std::string>{"宁", "波"}));
    EXPECT_EQ(texts(data[1].tokens), (std::vector<std::string>{"金", "华"}));
    EXPECT_EQ(data[1].line, 4u);
  }
}

TEST(SpanScores, CountsAsConllevalDoes) {
  SpanScores s;
  s.add({{1, 0, 2}, {2, 2, 4}, {7, 4, 6}}, {{1, 0, 2}, {2, 2, 5}, {7, 5, 6}});
  EXPECT_EQ(s.overall().gold, 3u);
  EXPECT_EQ(s.overall().predicted, 3u);
  EXPECT_EQ(s.overall().correct, 1u);
  EXPECT_NEAR(s.overall().f1(), 1.0 / 3.0, 1e-12);
  EXPECT_EQ(s.by_tag().at("prov").correct, 1u);
  EXPECT_EQ(s.by_tag().at("road").correct, 0u);
}

AddressElement element(const char* tag, const char* text) { return {tag, text, 0, 0}; }

TEST(AdminResolver, CompletesMissingLevelsAndMarksThemInferred) {
  const Gazetteer g = small_gazetteer();
  const auto admin = resolve_admin({element("district", "余杭区"), element("road", "文一西路")}, g);
  EXPECT_FALSE(admin.ambiguous);
  ASSERT_TRUE(admin.prov && admin.city && admin.district);
  EXPECT_EQ(admin.prov->name, "浙江省");
  EXPECT_TRUE(admin.prov->inferred);
  EXPECT_EQ(admin.city->name, "杭州市");
  EXPECT_TRUE(admin.city->inferred);
  EXPECT_FALSE(admin.district->inferred);
  EXPECT_FALSE(admin.town);
  EXPECT_EQ(admin.adcode, "330110");
  EXPECT_TRUE(admin.conflicting.empty());
}

// An element the best reading contradicts is reported, not dropped: two elements name
// 杭州市, one names a 朝阳区 that lies elsewhere.
TEST(AdminResolver, ElementsTheReadingContradictsAreListed) {
  const Gazetteer g = small_gazetteer();
  const auto admin =
      resolve_admin({element("prov", "浙江省"), element("city", "杭州市"), element("district", "朝阳区")}, g);
  EXPECT_FALSE(admin.ambiguous);
  EXPECT_EQ(admin.adcode, "3301");
  EXPECT_FALSE(admin.district);
  ASSERT_EQ(admin.conflicting.size(), 1u);
  EXPECT_EQ(admin.conflicting[0].tag, "district");
  EXPECT_EQ(admin.conflicting[0].text, "朝阳区");
  // A tie is an ambiguity, not a conflict: each candidate explains its own element.
  const auto tie = resolve_admin({element("prov", "吉林省"), element("district", "余杭区")}, g);
  EXPECT_TRUE(tie.ambiguous);
  EXPECT_TRUE(tie.conflicting.empty());
}

TEST(AdminResolver, AmbiguousNamesAreReportedNotGuessed) {
  const Gazetteer g = small_gazetteer();
  const auto alone = resolve_admin({element("district", "朝阳区")}, g);
  EXPECT_TRUE(alone.ambiguous);
  EXPECT_EQ(alone.candidates.size(), 2u);
  EXPECT_FALSE(alone.prov);
  EXPECT_TRUE(alone.adcode.empty());

  const auto with_city = resolve_admin({element("city", "长春"), element("district", "朝阳")}, g);
  EXPECT_FALSE(with_city.ambiguous);
  EXPECT_EQ(with_city.adcode, "220104");
  EXPECT_EQ(with_city.prov->name, "吉林省");

  // A municipality's city level takes the municipality's name and is named with it.
  const auto beijing = resolve_admin({element("prov", "北京"), element("district", "朝阳区")}, g);
  EXPECT_EQ(beijing.adcode, "110105");
  EXPECT_EQ(beijing.city->name, "北京市");
  EXPECT_FALSE(beijing.city->inferred);
}

TEST(AdminResolver, ACityOrDistrictUnderAnotherSuffixReadsAsItsDivision) {
  std::istringstream in(
      "53\tprov\t云南省\t\n"
      "5325\tcity\t红河哈尼族彝族自治州\t53\n"
      "33\tprov\t浙江省\t\n"
      "3311\tcity\t丽水市\t33\n"
      "331127\tdistrict\t景宁畲族自治县\t3311\n"
      "13\tprov\t河北省\t\n"
      "1311\tcity\t衡水市\t13\n"
      "131125\tdistrict\t安平县\t1311\n"
      "21\tprov\t辽宁省\t\n"
      "2113\tcity\t朝阳市\t21\n"
      "211321\tdistrict\t朝阳县\t2113\n"
      "22\tprov\t吉林省\t\n"
      "2201\tcity\t长春市\t22\n"
      "220104\tdistrict\t朝阳区\t2201\n");
  const Gazetteer g = Gazetteer::parse(in, "suffixes.tsv");

  // A prefecture's everyday name is certain alone: no other city has the stem.
  const auto honghe = resolve_admin({element("city", "红河州")}, g);
  EXPECT_EQ(honghe.adcode, "5325");
  EXPECT_EQ(honghe.prov->name, "云南省");

  const auto jingning = resolve_admin({element("city", "丽水市"), element("district", "景宁县")}, g);
  EXPECT_EQ(jingning.adcode, "331127");
  ASSERT_TRUE(jingning.district);
  EXPECT_FALSE(jingning.district->inferred);

  const auto jingning_alone = resolve_admin({element("district", "景宁县")}, g);
  EXPECT_EQ(jingning_alone.adcode, "331127");

  // Alone, another suffix is no evidence: Taiwan's 安平区 is not Hebei's 安平县.
  const auto anping = resolve_admin({element("district", "安平区")}, g);
  EXPECT_TRUE(anping.adcode.empty());
  EXPECT_FALSE(anping.district);

  // A name that names a district as written is never read under another suffix.
  const auto chaoyang = resolve_admin({element("prov", "辽宁省"), element("district", "朝阳区")}, g);
  EXPECT_NE(chaoyang.adcode, "211321");
}

// The shipped parser, on addresses written for this test.
class ShippedParser : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { parser_ = new AddressParser(AddressParser::load(source_dir() / "models/default/parser")); }
  static void TearDownTestSuite() { delete parser_; }
  static AddressParser* parser_;
};
AddressParser* ShippedParser::parser_ = nullptr;

std::vector<std::pair<std::string, std::string>> tags_and_texts(const ParsedAddress& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : p.elements) out.emplace_back(e.tag, e.text);
  return out;
}

TEST_F(ShippedParser, TagsAFullAddress) {
  const auto p = parser_->parse("浙江省杭州市余杭区五常街道文一西路969号");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"prov", "浙江省"}, {"city", "杭州市"}, {"district", "余杭区"}, {"town", "五常街道"},
      {"road", "文一西路"}, {"roadno", "969号"}};
  EXPECT_EQ(tags_and_texts(p), expected);
  EXPECT_EQ(p.admin.adcode, "330110005");
  EXPECT_FALSE(p.admin.prov->inferred);
}

// The tagged data has no brackets; they separate elements and are never part of one.
TEST_F(ShippedParser, BracketsSeparateElements) {
  for (const auto& e : parser_->parse("湖南省长沙市二丘村（博雅东方明珠幼儿园）").elements) {
    if (e.text.find("（") != std::string::npos || e.text.find("）") != std::string::npos) {
      EXPECT_TRUE(e.tag == "redundant" && (e.text == "（" || e.text == "）")) << e.tag << " " << e.text;
    }
  }
  // The parser reads text as it is given (the CLI normalizes first unless told not to), so
  // the variants 【】 「」 [] are brackets too.
  for (const char* address : {"杭州市西湖区文三路478号(华星科技大厦)3楼", "杭州市西湖区文三路478号【华星科技大厦】3楼",
                              "杭州市西湖区文三路478号「华星科技大厦」3楼", "杭州市西湖区文三路478号[华星科技大厦]3楼"}) {
    const auto p = parser_->parse(address);
    const auto elements = tags_and_texts(p);
    EXPECT_NE(std::find(elements.begin(), elements.end(), std::pair<std::string, std::string>("poi", "华星科技大厦")),
              elements.end())
        << address;
    EXPECT_NE(std::find(elements.begin(), elements.end(), std::pair<std::string, std::string>("floorno", "3楼")),
              elements.end())
        << address;
    EXPECT_EQ(std::count_if(p.elements.begin(), p.elements.end(), [](const auto& e) { return e.tag == "redundant"; }),
              2)
        << address;
  }
}

// List marks separate elements as brackets do, in any width; a leading 中国 is the country.
TEST_F(ShippedParser, ListMarksSeparateElementsAndChinaIsTheCountry) {
  for (const char* address : {"北京/朝阳区/建国路88号", "北京,朝阳区,建国路88号", "北京；朝阳区；建国路88号",
                              "北京|朝阳区|建国路88号", "中国北京市朝阳区建国路88号", "中国,北京市,朝阳区,建国路88号"}) {
    const auto p = parser_->parse(address);
    EXPECT_EQ(p.admin.adcode, "110105") << address;
    EXPECT_FALSE(p.admin.ambiguous) << address;
    for (const auto& e : p.elements) {
      const std::u32string text = text::decode_utf8(e.text);
      const bool mark = std::any_of(text.begin(), text.end(), [](char32_t c) { return geo::separates_elements(c); });
      EXPECT_TRUE(!mark || (e.tag == "redundant" && text.size() == 1)) << address << ": " << e.tag << " " << e.text;
    }
  }
  EXPECT_EQ(parser_->parse("中国北京市朝阳区建国路88号").elements.front().tag, "country");
  EXPECT_NE(parser_->parse("中国银行北京分行").elements.front().tag, "country");
  // Before a division the country is cut off and the rest tagged alone, as the data writes
  // addresses: the tagger read 中华人民共和国… as a POI and 中国北京市 as one.
  for (const char* text : {"中华人民共和国浙江省杭州市", "中华人民共和国北京市", "中国北京市", "中国上海市"}) {
    const ParsedAddress p = parser_->parse(text);
    ASSERT_GE(p.elements.size(), 2u) << text;
    EXPECT_EQ(p.elements[0].tag, "country") << text;
    EXPECT_NE(p.elements[1].tag, "poi") << text;
    EXPECT_FALSE(p.admin.adcode.empty()) << text;
  }
  EXPECT_EQ(parser_->parse("中华人民共和国浙江省杭州市").admin.adcode, "3301");
  for (const char* name : {"中国香港港凤黄金珠宝", "中国平安金融中心", "中国南山开发集团", "中国东方航空大厦"}) {
    EXPECT_NE(parser_->parse(name).elements.front().tag, "country") << name;
  }
}

// Division names after the street part (the tagged data always puts them first) still
// complete the chain; names that cannot be one place, or a short district name alone (东区
// and 西区 of estates), are left as the tagger read them.
TEST_F(ShippedParser, DivisionsWrittenLastCompleteTheChain) {
  for (const auto& [address, adcode] : std::vector<std::pair<std::string, std::string>>{
           {"朝阳建国路88号北京", "110105"}, {"建国路88号朝阳区北京市", "110105"}, {"中山路100号南京鼓楼", "320106"},
           {"同北巷2号铜山区", "320312"}, {"中山路100号(南京)", "3201"}}) {
    const auto p = parser_->parse(address);
    EXPECT_EQ(p.admin.adcode, adcode) << address;
    EXPECT_FALSE(p.admin.ambiguous) << address;
  }
  const auto p = parser_->parse("中山路100号南京鼓楼");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"road", "中山路"}, {"roadno", "100号"}, {"city", "南京"}, {"district", "鼓楼"}};
  EXPECT_EQ(tags_and_texts(p), expected);
  for (const char* kept : {"和平北路三亚上街", "三元新村西区", "南山路62号广南商城", "上雪科技园东区"}) {
    const auto elements = parser_->parse(kept).elements;
    EXPECT_TRUE(std::none_of(elements.begin(), elements.end(), [](const auto& e) { return e.tag == "district"; }))
        << kept;
  }
}

// A name repeated in the admin chain stays the repetition the tagger reads it as, written
// last or not (the dev file's 遂昌县遂昌县新路湾镇 after a junk element).
TEST_F(ShippedParser, ARepeatedDivisionNameStaysRedundant) {
  const auto p = parser_->parse("浙江省丽水市null浙江省丽水市遂昌县遂昌县新路湾镇");
  const auto n = std::count_if(p.elements.begin(), p.elements.end(), [](const auto& e) { return e.tag == "district"; });
  EXPECT_EQ(n, 1) << ::testing::PrintToString(tags_and_texts(p));
  EXPECT_EQ(p.admin.district->name, "遂昌县");
}

// The tagged data calls a municipality a city (上海市/city 浦东新区/district); written short
// before a district (北京朝阳), the tagger read it as a province and the district as a city.
TEST_F(ShippedParser, AMunicipalityIsTheCityAndItsDistrictTheDistrict) {
  for (const auto& [address, adcode] : std::vector<std::pair<std::string, std::string>>{
           {"北京朝阳建外88号", "110105"}, {"北京朝阳区建国路88号", "110105"}, {"天津南开区鞍山西道", "120104"},
           {"重庆渝中解放碑", "500103"}, {"北京东城", "110101"}}) {
    const auto p = parser_->parse(address);
    ASSERT_GE(p.elements.size(), 2u) << address;
    EXPECT_EQ(p.elements[0].tag, "city") << address;
    EXPECT_EQ(p.elements[1].tag, "district") << address;
    EXPECT_EQ(p.admin.adcode.substr(0, 6), adcode) << address;
  }
  // A repeated municipality keeps its province, and 湖北's directly administered 天门
  // leaves 湖北省 the province.
  const auto twice = parser_->parse("上海上海市浦东新区环桥路");
  EXPECT_EQ(twice.elements[1].tag, "city");
  const auto tianmen = parser_->parse("湖北省天门市钟大道189号");
  EXPECT_EQ(tianmen.elements[0].tag, "prov");
}

// A division's name alone (a search region): the data's repeated names (北京北京市朝阳区)
// teach the tagger that a lone 北京市 is redundant; the division-name rule reads it.
TEST_F(ShippedParser, ADivisionNameAloneIsThatDivision) {
  for (const auto& [address, adcode] : std::vector<std::pair<std::string, std::string>>{
           {"北京市", "11"}, {"北京", "11"}, {"天津市", "12"}, {"浙江省", "33"}, {"杭州市", "3301"}, {"余杭区", "330110"}}) {
    const auto p = parser_->parse(address);
    EXPECT_EQ(p.admin.adcode, adcode) << address;
    ASSERT_EQ(p.elements.size(), 1u) << address;
    EXPECT_NE(p.elements[0].tag, "redundant") << address;
  }
  // A municipality alone names its city level as it does before a district (北京市朝阳区:
  // city 北京市); a province that is no municipality names no city.
  for (const auto& [address, city] : std::vector<std::pair<std::string, std::string>>{
           {"北京市", "北京市"}, {"上海市", "上海市"}, {"天津", "天津市"}, {"重庆市", "重庆市"}}) {
    const auto p = parser_->parse(address);
    ASSERT_TRUE(p.admin.city) << address;
    EXPECT_EQ(p.admin.city->name, city) << address;
    EXPECT_FALSE(p.admin.city->inferred) << address;
    EXPECT_EQ(p.admin.adcode.size(), 2u) << address;
  }
  EXPECT_FALSE(parser_->parse("浙江省").admin.city);
}

// Real addresses name a district and a street of another district (a default district
// filled in by some system); the street, the more specific name, wins, and the district is
// reported.
TEST_F(ShippedParser, AContradictedDistrictIsReported) {
  const auto p = parser_->parse("江苏省南京市鼓楼区瑞金路街道瑞金路2号");
  ASSERT_TRUE(p.admin.district);
  EXPECT_EQ(p.admin.district->name, "秦淮区");
  ASSERT_EQ(p.admin.conflicting.size(), 1u);
  EXPECT_EQ(p.admin.conflicting[0].text, "鼓楼区");
  EXPECT_EQ(p.admin.conflicting[0].start, 6u);
  const auto json = parse_json(p);
  EXPECT_EQ(json["admin"]["conflicting"][0]["text"], "鼓楼区");
  const auto doc = nlohmann::json::parse(serve::openapi_document());
  EXPECT_EQ(schema_problems(doc["components"]["schemas"]["ParseResult"], json, doc), std::vector<std::string>{});
  EXPECT_FALSE(parse_json(parser_->parse("江苏省南京市秦淮区瑞金路街道瑞金路2号"))["admin"].contains("conflicting"));
}

// A hospital's name holds a district's (同仁, Qinghai); the city it states wins the guess.
TEST_F(ShippedParser, AStatedCityIsNotOutweighedByADistrictInAName) {
  const auto p = parser_->parse("南京同仁耳鼻喉医院");
  ASSERT_TRUE(p.admin.city);
  EXPECT_EQ(p.admin.city->name, "南京市");
  EXPECT_TRUE(p.admin.ambiguous);
}

TEST_F(ShippedParser, OffsetsAreCodePointsIntoTheInput) {
  const std::string input = "ＡＢ 杭州市西湖区文三路90号";
  const auto p = parser_->parse(input);
  const std::u32string cps = text::decode_utf8(input);
  ASSERT_FALSE(p.elements.empty());
  for (const auto& e : p.elements) {
    ASSERT_LE(e.end, cps.size());
    EXPECT_EQ(text::encode_utf8(cps.substr(e.start, e.end - e.start)), e.text);
  }
  EXPECT_EQ(p.admin.city->name, "杭州市");
  EXPECT_TRUE(p.admin.prov->inferred);
}

TEST_F(ShippedParser, BadAndOddInputNeverCrashes) {
  EXPECT_THROW(parser_->parse("杭州\xff"), Error);
  EXPECT_TRUE(parser_->parse("").elements.empty());
  EXPECT_TRUE(parser_->parse(" \t ").elements.empty());
  std::string huge;
  for (int i = 0; i < 1000; ++i) huge += "杭州市文一路9号";
  const auto p = parser_->parse(huge);
  EXPECT_FALSE(p.elements.empty());
  EXPECT_EQ(p.elements.back().end, 8000u);
}

// A line of addresses pasted together, or a list of names, is read in time proportional
// to its length (it took seconds per 100,000 characters when every gazetteer match and
// admin element was weighed against every other), and its chain is the first address's.
TEST_F(ShippedParser, AVeryLongLineIsReadAndKeepsTheFirstChain) {
  std::string pasted;
  for (int i = 0; i < 4096; ++i) pasted += "浙江省杭州市西湖区文三路478号";
  const auto p = parser_->parse(pasted);  // 65,536 characters: the most it reads
  ASSERT_TRUE(p.admin.district);
  EXPECT_EQ(p.admin.district->name, "西湖区");
  EXPECT_EQ(p.admin.city->name, "杭州市");
  EXPECT_EQ(p.elements.back().end, 4096u * 16u);
  // One more character is refused (3.5 million took 11 s and 3.4 GB).
  try {
    parser_->parse(pasted + "号");
    ADD_FAILURE() << "a text past the cap was parsed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the address is 65537 characters long; the parser reads at most 65536");
  }
  std::string names = "浙江省杭州市";
  for (int i = 0; i < 2000; ++i) names += i % 2 ? "朝阳区" : "鼓楼区";
  const auto list = parser_->parse(names);
  ASSERT_TRUE(list.admin.city);
  EXPECT_EQ(list.admin.city->name, "杭州市");
}

}  // namespace
}  // namespace geoalign::geo
