#include <gtest/gtest.h>

#include <random>

#include "text/markup.h"
#include "text/normalize.h"
#include "text/utf8.h"

namespace geoalign::text {
namespace {

TEST(AddressNormalizer, OffLeavesTextUntouched) {
  const AddressNormalizer n({});
  EXPECT_EQ(n.normalize("  ＡＢ１　号 \t"), "  ＡＢ１　号 \t");
  EXPECT_THROW(n.normalize("\xC0\x80"), Utf8Error);
}

TEST(AddressNormalizer, FullwidthToHalfwidth) {
  const AddressNormalizer n({.fullwidth_to_halfwidth = true});
  EXPECT_EQ(n.normalize("深圳ＡＢＣ１２３号（东门）！"), "深圳ABC123号(东门)!");
  EXPECT_EQ(n.normalize("宁波　海曙"), "宁波 海曙");
  EXPECT_EQ(n.normalize("～｡"), "~｡");  // U+FF5E maps; U+FF61 (halfwidth ideographic stop) stays
}

TEST(AddressNormalizer, CleansWhitespaceAndControls) {
  const AddressNormalizer n({.clean_whitespace = true});
  EXPECT_EQ(n.normalize("  北京\t\t朝阳 \n 建国路\x01 88号\u200b  "), "北京朝阳建国路88号");
  EXPECT_EQ(n.normalize("\u3000\u00a0"), "");
}

// Blanks beside an ideograph or punctuation never reach BERT's tokens, so they go; between
// letters or digits they can mean something and stay, as one space.
TEST(AddressNormalizer, KeepsOnlyBlanksThatCanMeanSomething) {
  const AddressNormalizer n({.clean_whitespace = true});
  EXPECT_EQ(n.normalize("文三路 478号 华星 大厦"), "文三路478号华星大厦");
  EXPECT_EQ(n.normalize("幢 (A座) - 3"), "幢(A座)-3");
  EXPECT_EQ(n.normalize("1 2号 Block  B  Tower"), "1 2号Block B Tower");
}

// A form's fields joined by slashes or bars are parts of one address (the match head once
// read 北京/朝阳区/建国路88号 against 北京市朝阳区建国路88号 not_match, counting each slash as
// text only one side had); between letters or digits a slash is part of the text.
TEST(AddressNormalizer, SlashesBetweenAddressPartsAreBlanks) {
  const AddressNormalizer n({.clean_whitespace = true});
  EXPECT_EQ(n.normalize("北京/朝阳区/建国路88号"), "北京朝阳区建国路88号");
  EXPECT_EQ(n.normalize("浙江省|杭州市\\西湖区"), "浙江省杭州市西湖区");
  EXPECT_EQ(n.normalize("/文三路478号/"), "文三路478号");
  EXPECT_EQ(n.normalize("华星大厦2/3楼 A/B座"), "华星大厦2/3楼A/B座");
  EXPECT_EQ(n.normalize("88号/ 3栋"), "88号3栋");
  for (const char* twice : {"A/ 北京", "A//北京", "北京/ /朝阳", "C:\\data", "3/ /4"}) {
    EXPECT_EQ(n.normalize(n.normalize(twice)), n.normalize(twice)) << twice;
  }
}

TEST(AddressNormalizer, InvisibleCharactersAndBlanksChangeNothing) {
  const AddressNormalizer n({.fullwidth_to_halfwidth = true, .clean_whitespace = true});
  const std::string clean = n.normalize("杭州市西湖区文三路478号华星科技大厦");
  for (const char* noisy : {"\uFEFF杭州市西湖区文三路478号华星科技大厦", "杭\u200B州市西湖区文三路4\u200B78号华星科技大厦\u200B",
                            "杭州市\u00A0西湖区\u3000文三路 478号华星科技大厦\u3000", "\u2060杭州市西湖区文三路\u200D478号华星科技大厦",
                            "   杭州市 西湖区  文三路　478号 华星科技大厦\u00A0"}) {
    EXPECT_EQ(n.normalize(noisy), clean) << noisy;
  }
}

TEST(AddressNormalizer, IsDeterministicAndIdempotent) {
  const AddressNormalizer n({.fullwidth_to_halfwidth = true, .clean_whitespace = true});
  const std::string once = n.normalize(" 上海　浦东 Ｂ栋\t301 ");
  EXPECT_EQ(once, "上海浦东B栋301");
  EXPECT_EQ(n.normalize(once), once);
}

TEST(AddressNormalizer, FoldsVariantSpellingsToOne) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  EXPECT_EQ(n.normalize("蓮湖區金橋花園9號樓3單元"), "莲湖区金桥花园9号楼3单元");
  EXPECT_EQ(n.normalize("薴"), "苎");  // 薴 -> 苧 -> 苎 in one step
  EXPECT_EQ(n.normalize("化庄⑧号附③号⑩栋²楼₅室"), "化庄8号附3号10栋2楼5室");
  EXPECT_EQ(n.normalize("瑞金路2–1号 2—1 2－1 2——1 3 − 4号"), "瑞金路2-1号2-1 2-1 2-1 3-4号");
  EXPECT_EQ(n.normalize("1~3号楼 1〜3号"), "1~3号楼1〜3号");  // a range, not a dash
  EXPECT_EQ(n.normalize("二丘村【博雅】「幼儿园」[A座]〔东门〕"), "二丘村(博雅)(幼儿园)(A座)(东门)");
  EXPECT_EQ(n.normalize("城关镇祥和城13#楼3单元141# 3 #楼"), "城关镇祥和城13号楼3单元141号3号楼");
  EXPECT_EQ(n.normalize("#3 A#"), "#3 A#");  // 号 only after a number
  EXPECT_EQ(n.normalize("“嘉定镇城中路205号。”"), "嘉定镇城中路205号");
  EXPECT_EQ(n.normalize("\"嘉定镇城中路205号\",; "), "嘉定镇城中路205号");
  EXPECT_EQ(n.normalize("Room 3 −"), "Room 3");
  EXPECT_EQ(n.normalize("-1层 − 1层"), "-1层-1层");  // a basement keeps its sign
  EXPECT_EQ(n.normalize("(东门)"), "(东门)");  // brackets are not end noise
}

// A floor is one floor however it is written, and a basement never reads as the floor of
// the same number above ground.
TEST(AddressNormalizer, FoldsTheSpellingsOfAFloorToOne) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  for (const char* basement : {"万达广场负1层", "万达广场负一层", "万达广场负1楼", "万达广场负一楼", "万达广场地下一层",
                               "万达广场地下1层", "万达广场地下一楼", "万达广场B1层", "万达广场b1层", "万达广场B1F",
                               "万达广场B1F层", "万达广场 B1 层", "万达广场负1F", "万达广场地下1F楼"}) {
    EXPECT_EQ(n.normalize(basement), "万达广场负1层") << basement;
  }
  EXPECT_EQ(n.normalize("东城汇负二楼鹿角巷"), "东城汇负2层鹿角巷");
  EXPECT_EQ(n.normalize("大厦11F"), "大厦11层");
  EXPECT_EQ(n.normalize("1幢1F兰州牛肉面"), "1幢1层兰州牛肉面");
  EXPECT_EQ(n.normalize("万达广场1F层"), "万达广场1层");
  EXPECT_EQ(n.normalize("荃湾e座22f中心"), "荃湾e座22层中心");
  EXPECT_EQ(n.normalize("T3-13F"), "T3-13层");
  // Not floors: building B1, a code, a typo before 号, a dash, digits of a longer run,
  // a B after a Latin letter, a basement too deep to be one.
  for (const char* other : {"科技园B1楼", "AB1层", "B12层", "A5F", "5FA", "7f号", "36号-2楼", "1234F", "负123层",
                            "负0层", "负责人", "地下室", "地下车库", "B1", "3楼"}) {
    EXPECT_EQ(n.normalize(other), other) << other;
  }
}

// A dot inside a name is a way of writing the name, not a separator of its own.
TEST(AddressNormalizer, DropsADotThatJoinsTheWordsOfAName) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  for (const char* dotted : {"三一·新境界", "三一•新境界", "三一・新境界", "三一‧新境界", "三一∙新境界", "三一･新境界",
                             "三一.新境界", "三一 · 新境界", "三一．新境界"}) {
    EXPECT_EQ(n.normalize(dotted), "三一新境界") << dotted;
  }
  // Only between two Chinese characters: a decimal, a Latin name and a doubled dot stay.
  EXPECT_EQ(n.normalize("B座3.5层"), "B座3.5层");
  EXPECT_EQ(n.normalize("St.Mary·花园"), "St.Mary·花园");
  EXPECT_EQ(n.normalize("A·B栋"), "A·B栋");
  EXPECT_EQ(n.normalize("三一··新境界"), "三一··新境界");
}

// What an order or a contact card adds to an address is not part of it.
TEST(AddressNormalizer, DropsPhonesNamesPostcodesAndHints) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  const std::string address = "南京市鼓楼区中山路100号";
  for (const char* annotated :
       {"南京市鼓楼区中山路100号 13812345678", "南京市鼓楼区中山路100号13812345678", "南京市鼓楼区中山路100号 138-1234-5678",
        "南京市鼓楼区中山路100号 +86 138 1234 5678", "南京市鼓楼区中山路100号,8613812345678",
        "南京市鼓楼区中山路100号 电话:025-84561234", "南京市鼓楼区中山路100号 (025)84561234",
        "南京市鼓楼区中山路100号 0571-8888888转123", "南京市鼓楼区中山路100号 联系电话：400-123-4567",
        "南京市鼓楼区中山路100号 张三 13812345678", "张三 13812345678 南京市鼓楼区中山路100号",
        "南京市鼓楼区中山路100号，13812345678，欧阳娜", "张三13812345678,南京市鼓楼区中山路100号",
        "南京市鼓楼区中山路100号 收件人:张三", "收货人：李小明 南京市鼓楼区中山路100号",
        "南京市鼓楼区中山路100号邮编210000", "南京市鼓楼区中山路100号 邮政编码: 210000",
        "收货地址：南京市鼓楼区中山路100号", "地址: 南京市鼓楼区中山路100号",
        "南京市鼓楼区中山路100号（近新街口）", "南京市鼓楼区中山路100号【靠近地铁站】",
        "南京市鼓楼区中山路100号(距地铁1号线200米)", "南京市鼓楼区中山路100号 手机 13812345678 张三"}) {
    EXPECT_EQ(n.normalize(annotated), address) << annotated;
  }
  EXPECT_EQ(n.normalize("南京市鼓楼区中山路100号(近新街口)B座"), "南京市鼓楼区中山路100号B座");
  EXPECT_EQ(n.normalize("A座, 13812345678, 3楼"), "A座,3楼");
  EXPECT_EQ(n.normalize("星巴克(电话 0571-88888888)"), "星巴克");  // the bracket it emptied goes too
  // A name after a phone number ends at a separator or the end, not at a note: the row may
  // be a shop's name and nothing else.
  EXPECT_EQ(n.normalize("13812345678周六福(请放门卫)"), "周六福");
  EXPECT_EQ(n.normalize("中山路1号13812345678周六福(请放门卫)B座"), "中山路1号周六福B座");
  EXPECT_EQ(n.normalize("中山路100号 固定电话：0571-88888888"), "中山路100号");
}

// Only what cannot be part of the address goes: numbers that are no phone, a name glued to
// the address, a place beside a phone, a bracket that is no hint, and a row with nothing else.
TEST(AddressNormalizer, KeepsWhatCouldBeTheAddress) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  for (const char* kept : {"中山路100号张三", "中山路138号", "中山路12345678901号", "中山路100号13812345678901",
                           "中山路100号025-1234", "中山路100号(新街口)", "中山路(近新街口", "新地址:商城中路1号",
                           "邮编大厦3楼", "13812345678", "(近新街口)"}) {
    EXPECT_EQ(n.normalize(kept), kept);
  }
  EXPECT_EQ(n.normalize("中山路100号 23812345678"), "中山路100号23812345678");  // only the blank goes
  // A house number 86 before a mobile number is no country code; a label must be a word.
  EXPECT_EQ(n.normalize("建国路86 13812345678"), "建国路86");
  EXPECT_EQ(n.normalize("Shangri-La Hotel 021-68828888"), "Shangri-La Hotel");
  EXPECT_EQ(n.normalize("iPhone 13812345678"), "iPhone");
  EXPECT_EQ(n.normalize("周六福 0755-2345678"), "周六福");  // a shop, not a name, when it is all there is
  // A place word last, or no common surname first: a place, not a name.
  EXPECT_EQ(n.normalize("中山路100号 13812345678 王府井"), "中山路100号王府井");
  EXPECT_EQ(n.normalize("星巴克 13812345678 中山路100号"), "星巴克中山路100号");
  EXPECT_EQ(n.normalize("中山路100号 13812345678 张家村"), "中山路100号张家村");
}

// How to hand a parcel over says nothing about where: a bracketed note or a field that
// opens like a request goes, and so do emoji.
TEST(AddressNormalizer, DropsDeliveryNotesAndPictographs) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  const std::string address = "杭州市西湖区文三路100号";
  for (const char* noted :
       {"杭州市西湖区文三路100号(送货上门)", "杭州市西湖区文三路100号 请放门卫", "杭州市西湖区文三路100号，放快递柜",
        "杭州市西湖区文三路100号（周末不收货）", "杭州市西湖区文三路100号(到了打电话,谢谢)",
        "杭州市西湖区文三路100号(请第一时间发货,谢谢", "杭州市西湖区文三路100号,工作日送货, 谢谢",
        "请放门卫,杭州市西湖区文三路100号", "杭州市西湖区文三路100号😀", "☎ 杭州市西湖区文三路100号",
        "杭州市西湖区文三路100号⭐️", "杭州市西湖区文三路100号 张三 ☎13812345678"}) {
    EXPECT_EQ(n.normalize(noted), address) << noted;
  }
  EXPECT_EQ(n.normalize("文三路100号(龙湖工业区,请放门卫)"), "文三路100号(龙湖工业区)");
  EXPECT_EQ(n.normalize("文三😀路"), "文三路");
  EXPECT_EQ(n.normalize("文三路100号(请放门卫(东门)"), "文三路100号(东门)");  // a note left open
  EXPECT_EQ(n.normalize("文三路100号,放快递柜,3楼"), "文三路100号,3楼");
  EXPECT_EQ(n.normalize("二单元到 了打电话"), "二单元");  // a blank cannot hide a note
  EXPECT_EQ(n.normalize("二单元到·了打电话"), "二单元");  // nor a dot
  EXPECT_EQ(n.normalize("百货到了打电话"), "百货");
  // A shop whose name opens like a request, a bracket that is no note, and a note that is
  // all there is, stay.
  for (const char* kept : {"新成路91号阳光花卉(勿忘我花屋)", "周末咖啡(文三路店)", "文三路100号(门卫室)", "请放门卫", "😀"}) {
    EXPECT_EQ(n.normalize(kept), kept);
  }
  EXPECT_EQ(n.normalize("❶号楼"), "1号楼");  // a dingbat digit is a digit
}

// Exports leave HTML references and written-out escapes in a column.
TEST(AddressNormalizer, DecodesMarkup) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  EXPECT_EQ(n.normalize("文三路100号&nbsp;"), "文三路100号");
  EXPECT_EQ(n.normalize("文三路&nbsp;100号"), "文三路100号");
  EXPECT_EQ(n.normalize("文三路100号&amp;nbsp;"), "文三路100号");  // escaped twice
  EXPECT_EQ(n.normalize("中信&middot;阳光澳园"), "中信阳光澳园");  // then the name dot goes
  EXPECT_EQ(n.normalize("瑞金路4号A&amp;B"), "瑞金路4号A&B");
  EXPECT_EQ(n.normalize("&#25991;&#x4E09;路"), "文三路");
  EXPECT_EQ(n.normalize("&#65288;东门&#65289;"), "(东门)");  // decoded, then width-folded
  EXPECT_EQ(n.normalize("文三路100号\\n3楼"), "文三路100号3楼");
  EXPECT_EQ(n.normalize("Room 3\\tB"), "Room 3 B");
  for (const char* kept : {"瑞金路4号A&B", "A&nbspB", "A&unknown;B", "A&#0;B", "A&#xD800;B", "A&#1114112;B", "A&#;B",
                           "C:\\data", "A&#x110000;B", "A&#x4E0G;B"}) {
    EXPECT_EQ(n.normalize(kept), kept);
  }
  // A reference closes within ten characters; ampersands without one stay as they are
  // (200,000 of them once took seconds: each looked for a semicolon to the end).
  EXPECT_EQ(n.normalize("A&#x00004E09;B"), "A三B");
  EXPECT_EQ(n.normalize("A&#x000004E09;B"), "A&#x000004E09;B");
  const std::string ampersands(200000, '&');
  EXPECT_TRUE(n.normalize("A" + ampersands + "&nbsp;B") == "A" + ampersands + "B");  // not printed if not
  // Canonically equivalent spellings are one text, as the tokenizer reads them.
  EXPECT_EQ(n.normalize("杭州市Cafe\u0301大厦"), n.normalize("杭州市Café大厦"));
  EXPECT_EQ(n.normalize("杭州市Cafe&#769;大厦"), n.normalize("杭州市Café大厦"));  // decoded, then composed
  // What markup leaves blank is a blank address, to every interface.
  for (const char* blank : {"&nbsp;", " &emsp;&#8203;", "&#x200B;\\n", "&amp;nbsp;"}) {
    EXPECT_TRUE(text::is_blank_address(blank)) << blank;
    EXPECT_EQ(n.normalize(blank), "") << blank;
  }
  EXPECT_FALSE(text::is_blank_address("&amp;"));
  EXPECT_FALSE(text::is_blank_address("A&nbsp;"));
  const AddressNormalizer raw({.decode_markup = false});
  EXPECT_EQ(raw.normalize("A&amp;B"), "A&amp;B");
}

// A row of nothing but noise is a placeholder, and stays one rather than becoming blank.
TEST(AddressNormalizer, FoldingNeverEmptiesAnAddress) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  EXPECT_EQ(n.normalize("“。”"), "“。”");
  EXPECT_EQ(n.normalize("—"), "-");
  EXPECT_EQ(n.normalize(" ___ "), "___");
}

// A character that simplified text uses in its own right, or that an official division name
// uses, never changes, even where OpenCC would read it as traditional.
TEST(AddressNormalizer, FoldingLeavesSimplifiedAndOfficialNamesAlone) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  for (const char* kept : {"陕西省咸阳市乾县", "著名大厦", "吉林省白山市抚松县濛江乡", "河北省邢台市南和区尖塚镇",
                           "北京市朝阳区建国路88号"}) {
    EXPECT_EQ(n.normalize(kept), kept);
  }
}

TEST(AddressNormalizer, NormalizingTwiceChangesNothing) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  for (const char* text : {"“蓮湖區⑧#樓——【A】。”", "-_3#-", "⑩#", "臺北市中山區民權東路", "3 − 4号", "Room 3 −",
                           "− 1层", "3 #楼", "1 — — 2号", "薴", "“。”", "A ’B 。", " - 3 # 。",
                           "三一 · 新境界", "三一··新境界", "·三一·新·",
                           "张三 13812345678 中山路", "中山路(近(近新街口))", "邮编 邮编210000 210000",
                           "地址:地址:中山路", "13812345678 13812345678", "&amp;#65288;3&#x29;",
                           "&#92;n", "\\&#110;", "(请(请放)", ",请放,请放门卫😀"}) {
    const std::string once = n.normalize(text);
    EXPECT_EQ(n.normalize(once), once) << text;
  }
  // Hints inside hints, each round of the rules dropping the innermost.
  std::string nested = "路";
  for (int i = 0; i < 12; ++i) nested += "(近";
  nested += "a";
  for (int i = 0; i < 12; ++i) nested += "a)";
  EXPECT_EQ(n.normalize(nested), "路");
}

// Texts strung together from the pieces that the folding and the annotation rules read, so
// that one rule's change can make or break another's pattern.
TEST(AddressNormalizer, NormalizingTwiceChangesNothingOnRandomPieces) {
  const AddressNormalizer n(NormalizeOptions::addresses());
  static const char* const kPieces[] = {
      "138", "1234", "5678", "13812345678", "025", "-", "--", "—", " ", ",", "，", "(", ")", "【", "】", "近", "靠", "新街口",
      "电话", "电", "话", ":", "：", "收件人", "邮编", "210000", "地址", "张三", "欧阳", "王", "路", "号", "#", "3", "·", "。",
      "“", "”", "+86", "转", "\u200B", "\u3000", "Tel", "中山路100号", "⑧", "&", "amp;", "&nbsp;", "#", "x4E09;",
      "\\", "n", "请", "放门卫", "到了", "😀", "\uFE0F", "负", "地", "下", "一", "B", "1", "12", "层", "楼", "F", "f"};
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::size_t> piece(0, std::size(kPieces) - 1), length(1, 12);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t k = length(rng); k > 0; --k) text += kPieces[piece(rng)];
    const std::string once = n.normalize(text);
    ASSERT_EQ(n.normalize(once), once) << text;
  }
}

#ifdef GEOALIGN_HAVE_OPENCC
TEST(AddressNormalizer, TraditionalToSimplified) {
  const AddressNormalizer n({.traditional_to_simplified = true});
  EXPECT_EQ(n.normalize("臺北市中山區民權東路"), "台北市中山区民权东路");
  EXPECT_EQ(n.normalize("广州市天河区"), "广州市天河区");
}
#endif

}  // namespace
}  // namespace geoalign::text
