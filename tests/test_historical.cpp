// Former divisions (historical.tsv): loading, malformed rows, how the admin completion
// reads former names, what the tagger sees of them, the JSON, and the match head's
// comparison of admin chains through them.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "geo/address_parser.h"
#include "geo/address_tokens.h"
#include "geo/admin_resolver.h"
#include "geo/gazetteer.h"
#include "geo/historical.h"
#include "geo/parse_json.h"
#include "geo/tagger_features.h"
#include "geoalign/parser.h"
#include "match/pair_features.h"
#include "match/term_weights.h"
#include "support/cli_run.h"
#include "support/json_schema.h"
#include "serve/openapi.h"
#include "support/temp_dir.h"
#include "text/utf8.h"

namespace geoalign::geo {
namespace {

using namespace geoalign::testing;

constexpr const char* kCurrent =
    "14\tprov\t山西省\t\n"
    "1402\tcity\t大同市\t14\n"
    "140213\tdistrict\t平城区\t1402\n"
    "1404\tcity\t长治市\t14\n"
    "140403\tdistrict\t潞州区\t1404\n"
    "23\tprov\t黑龙江省\t\n"
    "2304\tcity\t鹤岗市\t23\n"
    "230406\tdistrict\t东山区\t2304\n"
    "33\tprov\t浙江省\t\n"
    "3301\tcity\t杭州市\t33\n"
    "330102\tdistrict\t上城区\t3301\n"
    "330102014\ttown\t四季青街道\t330102\n"
    "330102018\ttown\t九堡街道\t330102\n"
    "330105\tdistrict\t拱墅区\t3301\n"
    "330106\tdistrict\t西湖区\t3301\n"
    "330109\tdistrict\t萧山区\t3301\n"
    "330110\tdistrict\t余杭区\t3301\n"
    "330110005\ttown\t五常街道\t330110\n"
    "330113\tdistrict\t临平区\t3301\n"
    "330113100\ttown\t塘栖镇\t330113\n"
    "330114\tdistrict\t钱塘区\t3301\n"
    "330114001\ttown\t下沙街道\t330114\n"
    "3302\tcity\t宁波市\t33\n"
    "330212\tdistrict\t鄞州区\t3302\n"
    "3304\tcity\t嘉兴市\t33\n"
    "330481\tdistrict\t海宁市\t3304\n"
    "330481106\ttown\t丁桥镇\t330481\n"
    "3306\tcity\t绍兴市\t33\n"
    "330603\tdistrict\t柯桥区\t3306\n"
    "34\tprov\t安徽省\t\n"
    "3401\tcity\t合肥市\t34\n"
    "340181\tdistrict\t巢湖市\t3401\n"
    "3402\tcity\t芜湖市\t34\n"
    "340281\tdistrict\t无为市\t3402\n"
    "36\tprov\t江西省\t\n"
    "3607\tcity\t赣州市\t36\n"
    "360781\tdistrict\t瑞金市\t3607\n"
    "360781103\ttown\t九堡镇\t360781\n"
    "360781104\ttown\t丁桥镇\t360781\n"
    "44\tprov\t广东省\t\n"
    "4401\tcity\t广州市\t44\n"
    "440104\tdistrict\t越秀区\t4401\n"
    "4409\tcity\t茂名市\t44\n"
    "440902\tdistrict\t茂南区\t4409\n"
    "440902108\ttown\t羊角镇\t440902\n"
    "440904\tdistrict\t电白区\t4409\n";

constexpr const char* kFormer =
    "# code\tlevel\tname\tparent_code\tuntil_year\tsuccessor_codes\thow\n"
    "3414\tcity\t巢湖市\t34\t2011\t3401,3402\tcounties\n"
    "140202\tdistrict\t城区\t1402\t2018\t140213\n"
    "140402\tdistrict\t城区\t1404\t2018\t140403\n"
    "330103\tdistrict\t下城区\t3301\t2021\t330105\n"
    "330104\tdistrict\t江干区\t3301\t2021\t330102,330114\n"
    "330181\tdistrict\t萧山市\t3301\t2001\t330109\n"
    "330204\tdistrict\t江东区\t3302\t2016\t330212\n"
    "330621\tdistrict\t绍兴县\t3306\t2013\t330603\n"
    "341422\tdistrict\t无为县\t3414\t2011\t340281\n"
    "440102\tdistrict\t东山区\t4401\t2005\t440104\n"
    "440903\tdistrict\t茂港区\t4409\t2014\t440904|440902\n"
    "330110\tdistrict\t余杭区\t3301\t2021\t330110|330113\tceded_towns\n";

const Gazetteer& current() {
  static const Gazetteer g = [] {
    std::istringstream in(kCurrent);
    return Gazetteer::parse(in, "current.tsv");
  }();
  return g;
}

const HistoricalDivisions& former() {
  static const HistoricalDivisions h = [] {
    std::istringstream in(kFormer);
    return HistoricalDivisions::parse(in, "historical.tsv", current());
  }();
  return h;
}

std::vector<std::string> codes_of(std::span<const std::int32_t> found) {
  std::vector<std::string> out;
  for (const auto f : found) out.push_back(former().division(f).code);
  std::sort(out.begin(), out.end());
  return out;
}

AddressElement element(const char* tag, const char* text) { return {tag, text, 0, 0}; }

AdminChain resolve(std::vector<AddressElement> elements) { return resolve_admin(elements, current(), &former()); }

TEST(HistoricalDivisions, LoadsFullAndShortNamesParentsAndSuccessors) {
  const auto& h = former();
  ASSERT_EQ(h.divisions().size(), 12u);
  EXPECT_EQ(codes_of(h.lookup(U"江干区")), std::vector<std::string>{"330104"});
  EXPECT_EQ(codes_of(h.lookup(U"江干")), std::vector<std::string>{"330104"});
  EXPECT_EQ(codes_of(h.lookup(U"城区")), (std::vector<std::string>{"140202", "140402"}));
  EXPECT_EQ(codes_of(h.lookup(U"巢湖")), std::vector<std::string>{"3414"});
  EXPECT_TRUE(h.lookup(U"上城区").empty());
  const FormerDivision& jianggan = h.division(h.lookup(U"江干区")[0]);
  EXPECT_EQ(jianggan.level, AdminLevel::District);
  EXPECT_EQ(jianggan.until_year, 2021);
  EXPECT_EQ(current().division(jianggan.parent).name, "杭州市");
  ASSERT_EQ(jianggan.successors.size(), 2u);
  EXPECT_EQ(current().division(jianggan.successors[1]).name, "钱塘区");
  EXPECT_TRUE(jianggan.partial_successors.empty());
  // After '|': the divisions that took only a part (茂港区's 羊角镇, now in 茂南区).
  const FormerDivision& maogang = h.division(h.lookup(U"茂港区")[0]);
  ASSERT_EQ(maogang.successors.size(), 1u);
  EXPECT_EQ(current().division(maogang.successors[0]).name, "电白区");
  ASSERT_EQ(maogang.partial_successors.size(), 1u);
  EXPECT_EQ(current().division(maogang.partial_successors[0]).name, "茂南区");
  // A current division's earlier extent: 余杭区 before 临平区 took some of its towns.
  EXPECT_FALSE(maogang.earlier_extent);
  const FormerDivision& yuhang = h.division(h.lookup(U"余杭")[0]);
  EXPECT_TRUE(yuhang.earlier_extent);
  EXPECT_EQ(current().division(yuhang.successors.at(0)).name, "余杭区");
  EXPECT_EQ(current().division(yuhang.partial_successors.at(0)).name, "临平区");
  // 无为县's parent is a former prefecture, a row of the file.
  const FormerDivision& wuwei = h.division(h.lookup(U"无为县")[0]);
  EXPECT_EQ(wuwei.parent, -1);
  EXPECT_EQ(wuwei.parent_code, "3414");
  // The tagger's trie: full names only, and none that is a current name as well.
  std::vector<std::size_t> lengths;
  h.full_name_prefixes(U"江干区景芳路", [&](std::size_t length, std::span<const std::int32_t>) { lengths.push_back(length); });
  EXPECT_EQ(lengths, std::vector<std::size_t>{3});
  lengths.clear();
  h.full_name_prefixes(U"东山区", [&](std::size_t length, std::span<const std::int32_t>) { lengths.push_back(length); });
  EXPECT_TRUE(lengths.empty());  // 鹤岗's 东山区 is current
}

void expect_error(const std::string& tsv, const std::string& fragment) {
  std::istringstream in(tsv);
  try {
    HistoricalDivisions::parse(in, "h.tsv", current());
    FAIL() << "accepted: " << tsv;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(HistoricalDivisions, MalformedRowsNameTheLine) {
  const std::string ok = "330103\tdistrict\t下城区\t3301\t2021\t330105\n";
  expect_error(ok + "330104\tdistrict\t江干区\t3301\t2021\n", "h.tsv:2: expected code<TAB>level");
  expect_error("# c\n330103\tstreet\t下城区\t3301\t2021\t330105\n", "h.tsv:2: unknown level \"street\"");
  expect_error("330103\tprov\t下城区\t3301\t2021\t330105\n", "h.tsv:1: unknown level \"prov\"");
  expect_error("330103\tdistrict\t下城区\t3301\tlate\t330105\n", "h.tsv:1: until_year \"late\"");
  expect_error("330103\tdistrict\t下城区\t3301\t21\t330105\n", "h.tsv:1: until_year \"21\"");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t\n", "h.tsv:1: no successor_codes");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t330105,999999\n", "h.tsv:1: successor \"999999\" is not a current");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t330105|999999\n", "h.tsv:1: successor \"999999\" is not a current");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t330105,,330102\n", "h.tsv:1: successor \"\" is not a current");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t330105|330105\n", "h.tsv:1: successor 330105 listed twice");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t330105|\n", "h.tsv:1: successor_codes \"330105|\" is not");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t|330105\n", "h.tsv:1: successor_codes \"|330105\" is not");
  expect_error("330103\tdistrict\t下城区\t3301\t2021\t330105|330102|330114\n", "h.tsv:1: successor_codes");
  expect_error("330103\tdistrict\t\t3301\t2021\t330105\n", "h.tsv:1: empty code, name or parent_code");
  expect_error(ok + ok, "h.tsv:2: duplicate 330103 下城区");
  expect_error("330103\tdistrict\t下\xff\t3301\t2021\t330105\n", "h.tsv:1: invalid UTF-8");
  expect_error(ok + "330104\tdistrict\t江干区\t9999\t2021\t330102\n", "h.tsv:2: parent_code 9999 is neither");
  expect_error("330104\tdistrict\t江干区\t33\t2021\t330102\n", "h.tsv:1: parent 33 is not one level up");
  // A current division's row reads only as itself, before it ceded towns.
  expect_error("330110\tdistrict\t余杭区\t3301\t2021\t330113\n", "h.tsv:1: 330110 余杭区 is a current division");
  expect_error("330110\tdistrict\t余杭区\t3301\t2021\t330110,330113\n", "h.tsv:1: 330110 余杭区 is a current division");
  // Extra columns are notes; comments and blank lines are skipped; an empty file loads.
  std::istringstream notes("# header\n\n330103\tdistrict\t下城区\t3301\t2021\t330105\tsame_code\t2020-11\t2021-10\n");
  EXPECT_EQ(HistoricalDivisions::parse(notes, "h.tsv", current()).divisions().size(), 1u);
  std::istringstream empty("# nothing\n");
  EXPECT_TRUE(HistoricalDivisions::parse(empty, "h.tsv", current()).empty());
}

TEST(HistoricalResolver, OneSuccessorStandsInTheChain) {
  const auto a = resolve({element("city", "杭州市"), element("district", "下城区"), element("road", "武林路")});
  EXPECT_FALSE(a.ambiguous);
  ASSERT_TRUE(a.district);
  EXPECT_EQ(a.district->name, "拱墅区");
  EXPECT_EQ(a.district->code, "330105");
  EXPECT_FALSE(a.district->inferred);
  EXPECT_EQ(a.adcode, "330105");
  ASSERT_EQ(a.historical.size(), 1u);
  const HistoricalName& h = a.historical[0];
  EXPECT_EQ(h.level, "district");
  EXPECT_EQ(h.name, "下城区");
  EXPECT_EQ(h.code, "330103");
  EXPECT_EQ(h.until, 2021);
  EXPECT_EQ(h.now, std::vector<std::string>{"拱墅区"});
  EXPECT_EQ(h.now_codes, std::vector<std::string>{"330105"});
  // Short names too, and alone: the province and city are completed.
  const auto alone = resolve({element("district", "江东")});
  ASSERT_TRUE(alone.district && alone.city);
  EXPECT_EQ(alone.district->name, "鄞州区");
  EXPECT_EQ(alone.city->name, "宁波市");
  EXPECT_TRUE(alone.city->inferred);
}

TEST(HistoricalResolver, SeveralSuccessorsLeaveTheLevelOpenUnlessATownPicksOne) {
  const auto open = resolve({element("city", "杭州市"), element("district", "江干区")});
  EXPECT_FALSE(open.ambiguous);
  EXPECT_TRUE(open.candidates.empty());
  ASSERT_TRUE(open.city);
  EXPECT_EQ(open.city->name, "杭州市");
  EXPECT_FALSE(open.district);
  EXPECT_EQ(open.adcode, "3301");
  ASSERT_EQ(open.historical.size(), 1u);
  EXPECT_EQ(open.historical[0].now, (std::vector<std::string>{"上城区", "钱塘区"}));
  EXPECT_EQ(open.historical[0].now_codes, (std::vector<std::string>{"330102", "330114"}));

  const auto town = resolve({element("city", "杭州市"), element("district", "江干区"), element("town", "四季青街道")});
  ASSERT_TRUE(town.district && town.town);
  EXPECT_EQ(town.district->name, "上城区");
  EXPECT_FALSE(town.district->inferred);
  EXPECT_EQ(town.adcode, "330102014");
  ASSERT_EQ(town.historical.size(), 1u);
  EXPECT_EQ(town.historical[0].name, "江干区");
}

// An unambiguous chain ending at `adcode`, which notes the one former name `former`.
void expect_read_through(const AdminChain& a, const std::string& adcode, const std::string& former) {
  EXPECT_FALSE(a.ambiguous);
  EXPECT_EQ(a.adcode, adcode);
  ASSERT_EQ(a.historical.size(), 1u);
  EXPECT_EQ(a.historical[0].name, former);
}

TEST(HistoricalResolver, APartialSuccessorReadsOnlyWhereAnotherElementPutsIt) {
  // 茂港区 went to 电白区; its 羊角镇 has since moved on to 茂南区.
  const auto alone = resolve({element("district", "茂港区"), element("road", "人民路")});
  EXPECT_EQ(alone.adcode, "440904");
  ASSERT_EQ(alone.historical.size(), 1u);
  EXPECT_EQ(alone.historical[0].now, std::vector<std::string>{"电白区"});
  EXPECT_EQ(alone.historical[0].now_codes, std::vector<std::string>{"440904"});
  EXPECT_EQ(alone.historical[0].partly, std::vector<std::string>{"茂南区"});
  EXPECT_EQ(alone.historical[0].partly_codes, std::vector<std::string>{"440902"});
  const auto town = resolve({element("district", "茂港区"), element("town", "羊角镇")});
  expect_read_through(town, "440902108", "茂港区");
  ASSERT_TRUE(town.district);
  EXPECT_EQ(town.district->name, "茂南区");
  EXPECT_FALSE(town.district->inferred);  // the former name named it
}

TEST(HistoricalResolver, ACededTownReadsWhereItIsNowBesideTheCountyItLeft) {
  // 塘栖镇 was 余杭区's until 临平区 was made of some of its towns in 2021.
  for (const char* yuhang : {"余杭区", "余杭"}) {
    const auto ceded = resolve({element("city", "杭州市"), element("district", yuhang), element("town", "塘栖镇")});
    expect_read_through(ceded, "330113100", "余杭区");
    ASSERT_TRUE(ceded.district);
    EXPECT_EQ(ceded.district->name, "临平区");
    EXPECT_FALSE(ceded.district->inferred);  // 余杭区 named it, as it was then
    EXPECT_TRUE(ceded.conflicting.empty());
    EXPECT_EQ(ceded.historical[0].now, std::vector<std::string>{"余杭区"});
    EXPECT_EQ(ceded.historical[0].partly, std::vector<std::string>{"临平区"});
  }
  // Alone, or with a town it kept, it is today's 余杭区, with nothing historical to say.
  const auto alone = resolve({element("district", "余杭区"), element("road", "文一西路")});
  EXPECT_EQ(alone.adcode, "330110");
  EXPECT_TRUE(alone.historical.empty());
  const auto kept = resolve({element("district", "余杭区"), element("town", "五常街道")});
  EXPECT_EQ(kept.adcode, "330110005");
  EXPECT_TRUE(kept.historical.empty());
  // The row is no second place of the name: 余杭 stays as specific as before.
  EXPECT_FALSE(resolve({element("district", "余杭")}).ambiguous);
}

TEST(HistoricalResolver, ATownThatBecameAStreetIsFoundByItsStem) {
  // 江干区's 九堡镇 is 九堡街道 now, while 瑞金's 九堡镇 still is one. Alone, the name as
  // written wins; beside 江干区 the street explains both elements.
  const auto alone = resolve({element("town", "九堡镇")});
  EXPECT_EQ(alone.adcode, "360781103");
  const auto jianggan = resolve({element("district", "江干区"), element("town", "九堡镇")});
  expect_read_through(jianggan, "330102018", "江干区");
  ASSERT_TRUE(jianggan.town && jianggan.district);
  EXPECT_EQ(jianggan.town->name, "九堡街道");
  EXPECT_FALSE(jianggan.town->inferred);
  EXPECT_EQ(jianggan.district->name, "上城区");
}

TEST(HistoricalResolver, ANameOfOnePlaceOutweighsANameOfSeveral) {
  // 丁桥镇 names towns in 海宁 and 瑞金, neither in 江干区's successors; 江干区 names one
  // former district. The address is in 杭州, its district open between the successors.
  expect_read_through(resolve({element("district", "江干区"), element("town", "丁桥镇")}), "3301", "江干区");
  // A town of one place is as specific as the district, and current: the town decides.
  const auto one = resolve({element("district", "江干区"), element("town", "羊角镇")});
  EXPECT_EQ(one.adcode, "440902108");
  EXPECT_TRUE(one.historical.empty());
}

TEST(HistoricalResolver, NeverOverACurrentDivisionOfTheName) {
  // Same parent: 萧山 is 萧山区, the current name, with nothing historical to say.
  const auto xiaoshan = resolve({element("district", "萧山")});
  ASSERT_TRUE(xiaoshan.district);
  EXPECT_EQ(xiaoshan.district->code, "330109");
  EXPECT_TRUE(xiaoshan.historical.empty());
  // Inside it: 绍兴 is the city 绍兴市, not 绍兴县 in it (now 柯桥区).
  const auto shaoxing = resolve({element("city", "绍兴")});
  EXPECT_EQ(shaoxing.adcode, "3306");
  EXPECT_FALSE(shaoxing.district);
  EXPECT_TRUE(shaoxing.historical.empty());
  // Elsewhere, at equal support: 东山区 alone is 鹤岗's, which exists.
  const auto dongshan = resolve({element("district", "东山区")});
  EXPECT_EQ(dongshan.adcode, "230406");
  EXPECT_FALSE(dongshan.ambiguous);
  EXPECT_TRUE(dongshan.historical.empty());
  // Where the address says more: 广州市东山区 is the former district, now 越秀区.
  const auto guangzhou = resolve({element("city", "广州市"), element("district", "东山区")});
  EXPECT_EQ(guangzhou.adcode, "440104");
  ASSERT_EQ(guangzhou.historical.size(), 1u);
  EXPECT_EQ(guangzhou.historical[0].name, "东山区");
  // 巢湖市 is the county-level city under 合肥 today, not the prefecture it was.
  const auto chaohu = resolve({element("city", "巢湖市")});
  EXPECT_EQ(chaohu.adcode, "340181");
  EXPECT_TRUE(chaohu.historical.empty());
  EXPECT_TRUE(chaohu.city->inferred);
}

TEST(HistoricalResolver, FormerNamesAreAmbiguousAsCurrentOnesAre) {
  const auto alone = resolve({element("district", "城区")});
  EXPECT_TRUE(alone.ambiguous);
  EXPECT_EQ(alone.candidates, (std::vector<std::string>{"140213 山西省/大同市/平城区", "140403 山西省/长治市/潞州区"}));
  ASSERT_TRUE(alone.prov);
  EXPECT_FALSE(alone.city);
  EXPECT_TRUE(alone.historical.empty());
  const auto changzhi = resolve({element("city", "长治市"), element("district", "城区")});
  EXPECT_FALSE(changzhi.ambiguous);
  EXPECT_EQ(changzhi.adcode, "140403");
  ASSERT_EQ(changzhi.historical.size(), 1u);
  EXPECT_EQ(changzhi.historical[0].code, "140402");
}

TEST(HistoricalResolver, FormerPrefecturesAndTheirCounties) {
  // 巢湖市无为县: the prefecture (now split) and its county (now 无为市 in 芜湖), coarsest first.
  const auto a = resolve({element("city", "巢湖市"), element("district", "无为县")});
  EXPECT_FALSE(a.ambiguous);
  EXPECT_EQ(a.adcode, "340281");
  ASSERT_TRUE(a.city);
  EXPECT_EQ(a.city->name, "芜湖市");
  EXPECT_FALSE(a.city->inferred);
  ASSERT_EQ(a.historical.size(), 2u);
  EXPECT_EQ(a.historical[0].level, "city");
  EXPECT_EQ(a.historical[0].now, (std::vector<std::string>{"合肥市", "芜湖市"}));
  EXPECT_EQ(a.historical[1].level, "district");
  EXPECT_EQ(a.historical[1].name, "无为县");
}

TEST(HistoricalResolver, WithoutTheTableFormerNamesResolveNothing) {
  const auto a = resolve_admin({element("city", "杭州市"), element("district", "下城区")}, current());
  EXPECT_FALSE(a.district);
  EXPECT_EQ(a.adcode, "3301");
  EXPECT_TRUE(a.historical.empty());
  const HistoricalDivisions none;
  EXPECT_EQ(resolve_admin({element("district", "下城区")}, current(), &none).adcode, "");
}

TokenFeatures features(const char32_t* text, const HistoricalDivisions* h) {
  return extract_features(tokenize_address(text), current(), h);
}

// A text without a former full name gets exactly its features without the table, so the
// shipped tagger needs no retraining; one with a former name gets the gazetteer features
// a current district name would.
TEST(HistoricalTaggerFeatures, OnlyTextsWithAFormerFullNameChange) {
  // (上城区 would not do here: this table has 城区 as a former name, and no current 城区.)
  for (const char32_t* text : {U"杭州市西湖区景芳路12号", U"杭州市钱塘区下沙街道", U"江东路8号", U"江干路", U"绍兴市柯桥区东街", U"杭州"}) {
    const auto with = features(text, &former()), without = features(text, nullptr);
    EXPECT_EQ(with.ids, without.ids) << text::encode_utf8(text);
    EXPECT_EQ(with.begin, without.begin);
  }
  const auto with = features(U"杭州市江干区景芳路", &former()), without = features(U"杭州市江干区景芳路", nullptr);
  EXPECT_NE(with.ids, without.ids);
  // The former name's tokens look like a current district's in the same place.
  const auto current_name = features(U"杭州市上城区景芳路", nullptr);
  for (std::size_t token = 3; token < 6; ++token) {
    auto w = with.of(token), c = current_name.of(token), o = without.of(token);
    const std::size_t gazetteer_w = static_cast<std::size_t>(std::count_if(w.begin(), w.end(), [&](std::uint64_t id) {
      return std::find(c.begin(), c.end(), id) != c.end() && std::find(o.begin(), o.end(), id) == o.end();
    }));
    EXPECT_GT(gazetteer_w, 0u) << token;
  }
}

// The shipped parser folder.
class ShippedHistorical : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { parser_ = new AddressParser(AddressParser::load(source_dir() / "models/default/parser")); }
  static void TearDownTestSuite() { delete parser_; }
  static AddressParser* parser_;
};
AddressParser* ShippedHistorical::parser_ = nullptr;

TEST_F(ShippedHistorical, ResolvesFormerDistrictsInContext) {
  const auto merged = parser_->parse("杭州市下城区武林路12号");
  ASSERT_TRUE(merged.admin.district);
  EXPECT_EQ(merged.admin.district->name, "拱墅区");
  ASSERT_EQ(merged.admin.historical.size(), 1u);
  EXPECT_EQ(merged.admin.historical[0].until, 2021);

  const auto split = parser_->parse("杭州市江干区景芳路12号");
  EXPECT_EQ(split.admin.city->name, "杭州市");
  EXPECT_FALSE(split.admin.district);
  ASSERT_EQ(split.admin.historical.size(), 1u);
  EXPECT_EQ(split.admin.historical[0].now, (std::vector<std::string>{"上城区", "钱塘区"}));
  EXPECT_EQ(parser_->parse("杭州市江干区四季青街道").admin.district->name, "上城区");

  for (const auto& [address, now] : std::vector<std::pair<std::string, std::string>>{
           {"宁波市江东区中山东路100号", "鄞州区"}, {"上海市闸北区共和新路1号", "静安区"},
           {"北京市宣武区菜市口大街", "西城区"}, {"北京市崇文区天坛路", "东城区"}, {"上海卢湾区淮海中路", "黄浦区"}}) {
    const auto p = parser_->parse(address);
    ASSERT_TRUE(p.admin.district) << address;
    EXPECT_EQ(p.admin.district->name, now) << address;
    EXPECT_EQ(p.admin.historical.size(), 1u) << address;
  }
  // Towns a district ceded read where they are now: 余杭区's 塘栖镇 and 萧山区's 义蓬街道 went
  // to the new 临平区 and 钱塘区 in 2021, 宝安区's 观澜 to 龙华区.
  for (const auto& [address, now] : std::vector<std::pair<std::string, std::string>>{
           {"杭州市余杭区塘栖镇西河村文化礼堂", "临平区"}, {"萧山区义蓬街道义府大街", "钱塘区"},
           {"深圳市宝安区观澜街道大富工业区", "龙华区"}}) {
    const auto p = parser_->parse(address);
    ASSERT_TRUE(p.admin.district) << address;
    EXPECT_EQ(p.admin.district->name, now) << address;
    ASSERT_EQ(p.admin.historical.size(), 1u) << address;
    EXPECT_EQ(p.admin.historical[0].partly.size(), p.admin.historical[0].partly_codes.size());
  }
  EXPECT_EQ(parser_->parse("余杭区五常街道文一西路969号").admin.district->name, "余杭区");
  // Current names are untouched.
  const auto today = parser_->parse("杭州市拱墅区武林路12号");
  EXPECT_EQ(today.admin.district->name, "拱墅区");
  EXPECT_TRUE(today.admin.historical.empty());
}

// 吕梁地区 has one successor, 吕梁市; the tie between its two towns 三交镇 (临县's and
// 柳林县's) is as ambiguous under the former name as under the current one.
TEST_F(ShippedHistorical, ATieBelowTheOneSuccessorIsStillAmbiguous) {
  const auto former = parser_->parse("山西省吕梁地区三交镇");
  const auto today = parser_->parse("山西省吕梁市三交镇");
  EXPECT_TRUE(today.admin.ambiguous);
  EXPECT_TRUE(former.admin.ambiguous);
  EXPECT_EQ(former.admin.candidates, today.admin.candidates);
  ASSERT_TRUE(former.admin.guess && today.admin.guess);
  EXPECT_EQ(former.admin.guess->reading, today.admin.guess->reading);
  ASSERT_EQ(former.admin.historical.size(), 1u);
  EXPECT_EQ(former.admin.historical[0].name, "吕梁地区");
}

TEST_F(ShippedHistorical, JsonNamesTheFormerDivisionOnItsLevel) {
  const auto j = parse_json(parser_->parse("杭州市江干区景芳路12号"));
  const nlohmann::json expected = {{"name", "江干区"}, {"code", "330104"}, {"until", 2021},
                                   {"now", {"上城区", "钱塘区"}}, {"now_codes", {"330102", "330114"}}};
  EXPECT_EQ(j["admin"]["historical"], nlohmann::json({{"district", expected}}));
  EXPECT_TRUE(j["admin"]["district"].is_null());
  EXPECT_EQ(j["admin"]["ambiguous"], false);
  EXPECT_FALSE(parse_json(parser_->parse("杭州市上城区景芳路12号"))["admin"].contains("historical"));
  // Partial successors, where there are any, and with them too it fits the server's
  // published schema.
  const auto maogang = parse_json(parser_->parse("广东省茂名市茂港区羊角镇爱群路29号"));
  const auto& h = maogang["admin"]["historical"]["district"];
  EXPECT_EQ(h["now"], nlohmann::json({"电白区"}));
  EXPECT_EQ(h["partly"], nlohmann::json({"茂南区"}));
  EXPECT_EQ(h["partly_codes"], nlohmann::json({"440902"}));
  EXPECT_EQ(maogang["admin"]["district"], "茂南区");
  const auto doc = nlohmann::json::parse(serve::openapi_document());
  for (const auto& parsed : {j, maogang}) {
    EXPECT_EQ(schema_problems(doc["components"]["schemas"]["ParseResult"], parsed, doc), std::vector<std::string>{});
  }
}

// Pair features compare the chains by current codes: a former and a current name of one
// district agree, and nothing changes for addresses without former names.
TEST_F(ShippedHistorical, PairFeaturesCompareCurrentCodes) {
  const auto weights = match::TermWeights::load(source_dir() / "models/default" / match::TermWeights::kFileName);
  const auto& names = match::pair_feature_names();
  const auto district = static_cast<std::size_t>(std::find(names.begin(), names.end(), "admin_same_district") - names.begin());
  auto same_district = [&](const char* a, const char* b) {
    return match::pair_features(parser_->parse(a), parser_->parse(b), weights)[district];
  };
  EXPECT_EQ(same_district("杭州市下城区环城北路12号", "杭州市拱墅区环城北路12号"), 1.0f);
  EXPECT_EQ(same_district("杭州市江干区景芳路12号", "杭州市上城区景芳路12号"), 1.0f);
  EXPECT_EQ(same_district("杭州市江干区景芳路12号", "杭州市钱塘区景芳路12号"), 1.0f);
  EXPECT_EQ(same_district("杭州市江干区景芳路12号", "杭州市江干区景芳路12号"), 1.0f);
  EXPECT_EQ(same_district("杭州市江干区景芳路12号", "杭州市西湖区景芳路12号"), 0.0f);
  EXPECT_EQ(same_district("杭州市下城区环城北路12号", "杭州市西湖区环城北路12号"), 0.0f);
  EXPECT_EQ(same_district("杭州市西湖区文三路90号", "杭州市西湖区文三路90号"), 1.0f);
}

TEST(HistoricalFolder, AFolderWithoutTheTableLoadsAndABadTableIsNamed) {
  TempDir dir;
  for (const char* f : {kTaggerFile, kGazetteerFile}) {
    std::filesystem::copy_file(source_dir() / "models/default/parser" / f, dir / f);
  }
  const auto old = AddressParser::load(dir.path());
  const auto p = old.parse("杭州市下城区武林路12号");
  EXPECT_TRUE(p.admin.historical.empty());
  EXPECT_FALSE(p.admin.district);
  EXPECT_EQ(p.admin.city->name, "杭州市");

  write_file(dir / kHistoricalFile, "# c\n330103\tdistrict\t下城区\t3301\t2021\t330105\n330104\tdistrict\t江干区\n");
  try {
    AddressParser::load(dir.path());
    FAIL() << "a malformed historical.tsv loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / kHistoricalFile).string() + ":3: expected"), std::string::npos) << e.what();
  }
}

TEST(HistoricalCli, ParsePrintsTheFormerDivision) {
  const auto r = run_cli("parse --model " + (source_dir() / "models/default/parser").string(),
                         "杭州市下城区武林路12号\n杭州市西湖区文三路90号\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 2u);
  const auto first = nlohmann::json::parse(out[0]);
  EXPECT_EQ(first["admin"]["district"], "拱墅区");
  EXPECT_EQ(first["admin"]["historical"]["district"]["name"], "下城区");
  EXPECT_EQ(first["admin"]["historical"]["district"]["now"], nlohmann::json({"拱墅区"}));
  EXPECT_FALSE(nlohmann::json::parse(out[1])["admin"].contains("historical"));
}

}  // namespace
}  // namespace geoalign::geo
