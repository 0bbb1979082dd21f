// The best guess beside an ambiguous admin chain: from the address's other elements, then
// the prior counts, then the divisions' sizes; its JSON; `parse --no-guess` and the match
// head's parses, which keep today's unguessed chains.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>
#include <sstream>

#include "geo/address_parser.h"
#include "geo/admin_resolver.h"
#include "geo/division_prior.h"
#include "geo/gazetteer.h"
#include "geo/parse_json.h"
#include "geoalign/parser.h"
#include "match/pair_comparer.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace geoalign::geo {
namespace {

using namespace geoalign::testing;

// Two 朝阳区 (Beijing's with the street 望京街道, Changchun's with two towns and a
// development zone at town level), and the city 朝阳市 of Liaoning.
constexpr const char* kGazetteer =
    "11\tprov\t北京市\t\n"
    "1101\tcity\t市辖区\t11\n"
    "110105\tdistrict\t朝阳区\t1101\n"
    "110105010\ttown\t望京街道\t110105\n"
    "22\tprov\t吉林省\t\n"
    "2201\tcity\t长春市\t22\n"
    "220104\tdistrict\t朝阳区\t2201\n"
    "220104001\ttown\t前进街道\t220104\n"
    "220104002\ttown\t永昌街道\t220104\n"
    "220104400\ttown\t经济开发区\t220104\n"
    "21\tprov\t辽宁省\t\n"
    "2113\tcity\t朝阳市\t21\n";

Gazetteer gazetteer() {
  std::istringstream in(kGazetteer);
  return Gazetteer::parse(in, "guess.tsv");
}

DivisionPrior prior(const Gazetteer& g, const std::string& rows) {
  std::istringstream in(rows);
  return DivisionPrior::parse(in, "counts.tsv", g);
}

AddressElement element(const char* tag, const char* text) { return {tag, text, 0, 0}; }

const std::vector<AddressElement> kChaoyangAlone = {element("district", "朝阳区"), element("road", "建国路")};

TEST(AdminGuess, WithoutGuessingTheLevelsStayEmpty) {
  const Gazetteer g = gazetteer();
  const AdminChain admin = resolve_admin(kChaoyangAlone, g);
  EXPECT_TRUE(admin.ambiguous);
  EXPECT_EQ(admin.candidates, (std::vector<std::string>{"110105 北京市/朝阳区", "220104 吉林省/长春市/朝阳区"}));
  EXPECT_FALSE(admin.prov || admin.city || admin.district);
  EXPECT_TRUE(admin.adcode.empty());
  EXPECT_FALSE(admin.guess);
}

TEST(AdminGuess, AnotherElementNamingAPlaceInOneReadingDecides) {
  const Gazetteer g = gazetteer();
  const DivisionPrior counts = prior(g, "220104\t50\n");  // the prior would say Changchun
  const AdminChain admin =
      resolve_admin({element("district", "朝阳区"), element("poi", "望京SOHO"), element("roomno", "1201")}, g, nullptr, &counts);
  EXPECT_TRUE(admin.ambiguous);
  EXPECT_EQ(admin.candidates.size(), 2u);
  ASSERT_TRUE(admin.guess);
  EXPECT_EQ(admin.guess->by, "elements");
  EXPECT_EQ(admin.guess->reading, "110105 北京市/朝阳区");
  EXPECT_EQ(admin.guess->filled, (std::vector<std::string>{"prov", "city", "district"}));
  ASSERT_EQ(admin.guess->evidence.size(), 1u);
  EXPECT_EQ(admin.guess->evidence[0].tag, "poi");
  EXPECT_EQ(admin.guess->evidence[0].text, "望京SOHO");
  EXPECT_EQ(admin.guess->evidence[0].division, "望京街道");
  EXPECT_EQ(admin.guess->evidence[0].code, "110105010");
  ASSERT_TRUE(admin.prov && admin.city && admin.district);
  EXPECT_EQ(admin.prov->name, "北京市");
  EXPECT_EQ(admin.city->name, "北京市");  // a municipality's city is itself
  EXPECT_EQ(admin.district->name, "朝阳区");
  EXPECT_TRUE(admin.prov->inferred);
  EXPECT_FALSE(admin.district->inferred);
  EXPECT_FALSE(admin.town);
  EXPECT_EQ(admin.adcode, "110105");
}

TEST(AdminGuess, RoadsCountOnlyATownNameTheyStartWith) {
  const Gazetteer g = gazetteer();
  const DivisionPrior counts = prior(g, "110105\t50\n");
  // 永昌路 starts with Changchun's 永昌街道; 北京路 is named after a city, as roads everywhere are.
  const AdminChain road = resolve_admin({element("district", "朝阳区"), element("road", "永昌路")}, g, nullptr, &counts);
  ASSERT_TRUE(road.guess);
  EXPECT_EQ(road.guess->by, "elements");
  EXPECT_EQ(road.adcode, "220104");
  const AdminChain city = resolve_admin({element("district", "朝阳区"), element("road", "北京路")}, g, nullptr, &counts);
  ASSERT_TRUE(city.guess);
  EXPECT_EQ(city.guess->by, "prior");  // a road named after a city says nothing
}

TEST(AdminGuess, RepeatedAndGenericNamesAreNoEvidence) {
  const Gazetteer g = gazetteer();
  const DivisionPrior counts = prior(g, "110105\t3\n220104\t1\n");
  // 朝阳公园 repeats the district's own name (and 朝阳 is 朝阳市 too); 经济开发区 is a
  // development zone listed at town level under Changchun's 朝阳区.
  const AdminChain admin = resolve_admin(
      {element("district", "朝阳区"), element("poi", "朝阳公园"), element("devzone", "经济开发区")}, g, nullptr, &counts);
  ASSERT_TRUE(admin.guess);
  EXPECT_EQ(admin.guess->by, "prior");
  EXPECT_EQ(admin.adcode, "110105");
  EXPECT_DOUBLE_EQ(admin.guess->share, 0.75);
  EXPECT_TRUE(admin.guess->evidence.empty());
}

TEST(AdminGuess, ThePriorBacksOffToParentsThenSize) {
  const Gazetteer g = gazetteer();
  // Neither district counted: Changchun is.
  const DivisionPrior parents = prior(g, "2201\t4\n11\t9\n");
  const AdminChain by_parent = resolve_admin(kChaoyangAlone, g, nullptr, &parents);
  ASSERT_TRUE(by_parent.guess);
  EXPECT_EQ(by_parent.guess->by, "prior");
  EXPECT_EQ(by_parent.adcode, "220104");
  EXPECT_DOUBLE_EQ(by_parent.guess->share, 1.0);  // 4 against Beijing's placeholder city's 0

  // No counts: the district with more divisions under it (Changchun's has three).
  const DivisionPrior none(g);
  EXPECT_FALSE(none.has_counts());
  const AdminChain by_size = resolve_admin(kChaoyangAlone, g, nullptr, &none);
  ASSERT_TRUE(by_size.guess);
  EXPECT_EQ(by_size.guess->by, "size");
  EXPECT_EQ(by_size.guess->reading, "220104 吉林省/长春市/朝阳区");
  EXPECT_EQ(by_size.district->name, "朝阳区");
  EXPECT_EQ(by_size.city->name, "长春市");
  EXPECT_TRUE(by_size.city->inferred);
}

TEST(AdminGuess, OnlyTheLevelsTheReadingsDoNotShareAreFilledByIt) {
  // Two 红旗街道 in Changchun: the city is sure, the district and the street are guessed.
  std::istringstream in(std::string(kGazetteer) +
                        "220104003\ttown\t红旗街道\t220104\n220105\tdistrict\t南关区\t2201\n220105001\ttown\t红旗街道\t220105\n");
  const Gazetteer g = Gazetteer::parse(in, "guess.tsv");
  const DivisionPrior counts = prior(g, "220105001\t2\n");
  const AdminChain admin = resolve_admin({element("city", "长春"), element("town", "红旗街道")}, g, nullptr, &counts);
  EXPECT_TRUE(admin.ambiguous);
  ASSERT_TRUE(admin.guess);
  EXPECT_EQ(admin.guess->filled, (std::vector<std::string>{"district", "town"}));
  EXPECT_EQ(admin.adcode, "220105001");
  EXPECT_FALSE(admin.city->inferred);
  EXPECT_TRUE(admin.district->inferred);
}

// 南京市, and 同仁市 of Qinghai: 南京同仁耳鼻喉医院 names both, the second in a hospital's name.
const std::string kNanjingAndTongren = std::string(kGazetteer) +
                                       "32\tprov\t江苏省\t\n3201\tcity\t南京市\t32\n"
                                       "63\tprov\t青海省\t\n6323\tcity\t黄南藏族自治州\t63\n"
                                       "632301\tdistrict\t同仁市\t6323\n";

TEST(AdminGuess, AStreetNamedAfterACityDoesNotWeakenTheCity) {
  // A street 南京街道 in Jilin must not make 南京 the weaker name: the two read as one tie,
  // and the prior picks between them.
  std::istringstream in(kNanjingAndTongren + "220104005\ttown\t南京街道\t220104\n");
  const Gazetteer g = Gazetteer::parse(in, "guess.tsv");
  const DivisionPrior counts = prior(g, "3201\t50\n632301\t1\n");
  const AdminChain admin = resolve_admin({element("city", "南京"), element("district", "同仁")}, g, nullptr, &counts);
  EXPECT_TRUE(admin.ambiguous);
  EXPECT_EQ(admin.candidates, (std::vector<std::string>{"3201 江苏省/南京市", "632301 青海省/黄南藏族自治州/同仁市"}));
  ASSERT_TRUE(admin.city);
  EXPECT_EQ(admin.city->name, "南京市");
  // A district-tagged name keeps its towns: 同仁 beside a town 同仁镇 is the weaker name.
  std::istringstream with_town(kNanjingAndTongren + "220104006\ttown\t同仁镇\t220104\n");
  const Gazetteer g2 = Gazetteer::parse(with_town, "guess.tsv");
  const AdminChain nanjing = resolve_admin({element("city", "南京"), element("district", "同仁")}, g2);
  EXPECT_FALSE(nanjing.ambiguous);
  ASSERT_TRUE(nanjing.city);
  EXPECT_EQ(nanjing.city->name, "南京市");
}

TEST(DivisionPrior, MalformedRowsNameTheLine) {
  const Gazetteer g = gazetteer();
  auto error_of = [&](const std::string& rows) {
    try {
      prior(g, rows);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("# c\n110105\t2\n999\t1\n").find("counts.tsv:3: 999 is not a division"), std::string::npos);
  EXPECT_NE(error_of("110105\t2\n110105\t3\n").find("counts.tsv:2: duplicate code 110105"), std::string::npos);
  EXPECT_NE(error_of("110105\t-2\n").find("counts.tsv:1: count \"-2\""), std::string::npos);
  EXPECT_NE(error_of("110105\t2\t3\n").find("counts.tsv:1: expected code<TAB>count"), std::string::npos);
  EXPECT_NE(error_of("110105\n").find("expected code<TAB>count"), std::string::npos);
  const DivisionPrior ok = prior(g, "# comment\n\n110105\t7\n");
  EXPECT_TRUE(ok.has_counts());
  EXPECT_EQ(ok.count(2), 7u);  // 110105 is the third row of the gazetteer
  EXPECT_EQ(ok.size(0), 3u);   // 北京市: its placeholder city, 朝阳区 and 望京街道
}

// The shipped parser, on addresses written for this test.
class ShippedGuess : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { parser_ = new AddressParser(AddressParser::load(source_dir() / "models/default/parser")); }
  static void TearDownTestSuite() { delete parser_; }
  static AddressParser* parser_;
};
AddressParser* ShippedGuess::parser_ = nullptr;

// 西湖区 is Hangzhou's and Nanchang's; 西溪 in the POI is Hangzhou's 西溪街道.
TEST_F(ShippedGuess, FromElements) {
  const ParsedAddress p = parser_->parse("西湖区文一西路西溪水岸花苑160-2-2045");
  EXPECT_TRUE(p.admin.ambiguous);
  ASSERT_TRUE(p.admin.guess);
  EXPECT_EQ(p.admin.guess->by, "elements");
  EXPECT_EQ(p.admin.guess->reading, "330106 浙江省/杭州市/西湖区");
  ASSERT_FALSE(p.admin.guess->evidence.empty());
  EXPECT_EQ(p.admin.guess->evidence[0].division, "西溪街道");
  EXPECT_EQ(p.admin.city->name, "杭州市");
  EXPECT_EQ(p.admin.adcode, "330106");
}

// 朝阳区 alone: Beijing's is counted far more often than Changchun's (division_counts.tsv).
TEST_F(ShippedGuess, FromThePrior) {
  const ParsedAddress p = parser_->parse("朝阳区建国路88号");
  EXPECT_TRUE(p.admin.ambiguous);
  ASSERT_EQ(p.admin.candidates.size(), 2u);
  ASSERT_TRUE(p.admin.guess);
  EXPECT_EQ(p.admin.guess->by, "prior");
  EXPECT_GT(p.admin.guess->share, 0.5);
  EXPECT_EQ(p.admin.adcode, "110105");
  EXPECT_EQ(p.admin.prov->name, "北京市");
}

// 福建省 and 南京市 cannot both hold: whichever reading the guess takes, the element it
// overrules is listed as conflicting, as for an unambiguous chain.
TEST_F(ShippedGuess, TheGuessListsTheElementItOverrules) {
  const ParsedAddress p = parser_->parse("福建省南京市鼓楼区中山路1号");
  EXPECT_TRUE(p.admin.ambiguous);
  ASSERT_TRUE(p.admin.guess && p.admin.prov);
  ASSERT_EQ(p.admin.conflicting.size(), 1u);
  EXPECT_EQ(p.admin.conflicting[0].text, p.admin.prov->name == "江苏省" ? "福建省" : "南京市");
  EXPECT_TRUE(parser_->parse("福建省南京市鼓楼区中山路1号", {.guess = false}).admin.conflicting.empty());
}

// Hundreds of towns are called 城关镇: the list of readings is capped, and holds the guess.
TEST_F(ShippedGuess, TheCappedListOfReadingsHoldsTheGuess) {
  const ParsedAddress p = parser_->parse("城关镇人民路1号");
  EXPECT_TRUE(p.admin.ambiguous);
  ASSERT_TRUE(p.admin.guess);
  EXPECT_EQ(p.admin.candidates.size(), 10u);
  EXPECT_NE(std::find(p.admin.candidates.begin(), p.admin.candidates.end(), p.admin.guess->reading),
            p.admin.candidates.end())
      << p.admin.guess->reading;
}

TEST_F(ShippedGuess, NoGuessKeepsTheUnguessedChainAndCompleteAgrees) {
  for (const char* text : {"朝阳区建国路88号", "西湖区文一西路西溪水岸花苑160-2-2045", "杭州市西湖区文三路90号"}) {
    const ParsedAddress guessed = parser_->parse(text);
    const ParsedAddress plain = parser_->parse(text, {.guess = false});
    EXPECT_FALSE(plain.admin.guess) << text;
    EXPECT_EQ(plain.admin.ambiguous, guessed.admin.ambiguous) << text;
    EXPECT_EQ(plain.admin.candidates, guessed.admin.candidates) << text;
    if (plain.admin.ambiguous) {
      EXPECT_FALSE(plain.admin.district) << text;
      EXPECT_TRUE(plain.admin.adcode.empty()) << text;
    } else {
      EXPECT_EQ(parse_json(plain), parse_json(guessed)) << text;
    }
    EXPECT_EQ(parse_json(parser_->complete(text, plain.elements, {.guess = false})), parse_json(plain)) << text;
    EXPECT_EQ(parse_json(parser_->complete(text, guessed.elements)), parse_json(guessed)) << text;
  }
}

// The match head was trained on unguessed chains: its parses never guess.
TEST(PairComparer, ParsesWithoutTheGuess) {
  const auto comparer = match::PairComparer::load(source_dir() / "models/default/parser",
                                                  source_dir() / "models/default/term_weights.tsv");
  const ParsedAddress p = comparer.parse("朝阳区建国路88号");
  EXPECT_TRUE(p.admin.ambiguous);
  EXPECT_FALSE(p.admin.guess);
  EXPECT_FALSE(p.admin.district);
  EXPECT_FALSE(comparer.complete("朝阳区建国路88号", p.elements).admin.guess);
  EXPECT_TRUE(comparer.parser().parse("朝阳区建国路88号").admin.guess);
}

TEST(ParseJson, TheGuessShape) {
  const Gazetteer g = gazetteer();
  const DivisionPrior counts = prior(g, "110105\t2\n220104\t1\n");
  ParsedAddress p;
  p.text = "朝阳区望京SOHO";
  p.elements = {{"district", "朝阳区", 0, 3}, {"poi", "望京SOHO", 3, 9}};
  p.admin = resolve_admin(p.elements, g, nullptr, &counts);
  const nlohmann::json by_elements = parse_json(p)["admin"];
  EXPECT_EQ(by_elements["ambiguous"], true);
  EXPECT_EQ(by_elements["adcode"], "110105");
  EXPECT_EQ(by_elements["district"], "朝阳区");
  EXPECT_EQ(by_elements["candidates"].size(), 2u);
  EXPECT_EQ(by_elements["guess"],
            nlohmann::json::parse(R"({"by": "elements", "reading": "110105 北京市/朝阳区", "filled": ["prov", "city", "district"],
              "evidence": [{"tag": "poi", "text": "望京SOHO", "division": "望京街道", "code": "110105010"}]})"));

  p.elements = {{"district", "朝阳区", 0, 3}};
  p.admin = resolve_admin(p.elements, g, nullptr, &counts);
  EXPECT_EQ(parse_json(p)["admin"]["guess"],
            nlohmann::json::parse(R"({"by": "prior", "reading": "110105 北京市/朝阳区", "filled": ["prov", "city", "district"],
              "share": 0.667})"));

  p.admin = resolve_admin(p.elements, g);
  const nlohmann::json plain = parse_json(p)["admin"];
  EXPECT_FALSE(plain.contains("guess"));
  EXPECT_TRUE(plain["district"].is_null());
}

TEST(CliParse, NoGuessPrintsTodaysChain) {
  const std::string model = (source_dir() / "models/default/parser").string();
  const auto guessed = run_cli("parse --model " + model, "朝阳区建国路88号\n杭州市西湖区文三路90号\n");
  const auto plain = run_cli("parse --no-guess --model " + model, "朝阳区建国路88号\n杭州市西湖区文三路90号\n");
  ASSERT_EQ(guessed.exit_code, 0) << guessed.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto g = lines(guessed.out), n = lines(plain.out);
  ASSERT_EQ(g.size(), 2u);
  ASSERT_EQ(n.size(), 2u);
  const auto guessed_admin = nlohmann::json::parse(g[0])["admin"], plain_admin = nlohmann::json::parse(n[0])["admin"];
  EXPECT_EQ(guessed_admin["guess"]["by"], "prior");
  EXPECT_EQ(guessed_admin["adcode"], "110105");
  EXPECT_EQ(plain_admin, nlohmann::json::parse(R"({"prov": null, "city": null, "district": null, "town": null,
    "adcode": null, "inferred": [], "ambiguous": true, "candidates": ["110105 北京市/朝阳区", "220104 吉林省/长春市/朝阳区"]})"));
  EXPECT_EQ(g[1], n[1]);  // unambiguous: the same line either way
}

}  // namespace
}  // namespace geoalign::geo
