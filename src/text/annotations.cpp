#include "text/annotations.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string_view>
#include <utility>

#include "text/unicode.h"
#include "text/variant_folding.h"

namespace geoalign::text {

namespace {

constexpr std::size_t kNone = std::u32string::npos;
// How far back from a phone number its label or a name may stand: a few blanks or marks.
// Bounded, so that many phone numbers after a long run cost no more than the text's length.
constexpr std::size_t kMostGap = 8;

bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }
bool is_blank(char32_t c) { return unicode::is_whitespace(c) || unicode::is_python_space(c); }
bool is_colon(char32_t c) { return c == U':' || c == U'：'; }
// What separates the fields of an order's address line (a name, a phone, the address),
// quotes and a full stop around it included.
constexpr std::u32string_view kSeparators = U",，;；、|。\"'`“”‘’«»!！?？";
bool is_separator(char32_t c) { return is_blank(c) || kSeparators.find(c) != std::u32string_view::npos; }

bool starts_with(const std::u32string& t, std::size_t i, std::u32string_view word) {
  return t.compare(i, word.size(), word) == 0;
}

std::size_t skip_blanks(const std::u32string& t, std::size_t i) {
  while (i < t.size() && is_blank(t[i])) ++i;
  return i;
}

// Where the first of `words` that starts at i ends, or kNone. Blanks between the characters
// of a word are allowed: a blank beside an ideograph means nothing (电 话 is 电话).
std::size_t word_end(const std::u32string& t, std::size_t i, std::initializer_list<std::u32string_view> words) {
  for (const std::u32string_view w : words) {
    std::size_t j = i;
    for (std::size_t k = 0; k < w.size() && j != kNone; ++k) {
      if (k > 0) j = skip_blanks(t, j);
      j = j < t.size() && t[j] == w[k] ? j + 1 : kNone;
    }
    if (j != kNone) return j;
  }
  return kNone;
}

// Where the first of `words` that ends at `end` starts, blanks between its characters
// allowed, or kNone.
std::size_t word_start(const std::u32string& t, std::size_t end, std::initializer_list<std::u32string_view> words) {
  for (const std::u32string_view w : words) {
    std::size_t j = end;
    for (std::size_t k = w.size(); k-- > 0 && j != kNone;) {
      if (k + 1 < w.size()) {
        while (j > 0 && is_blank(t[j - 1])) --j;
      }
      j = j > 0 && t[j - 1] == w[k] ? j - 1 : kNone;
    }
    if (j != kNone) return j;
  }
  return kNone;
}

// The word of `words` that starts at i, or an empty view.
std::u32string_view word_at(const std::u32string& t, std::size_t i, std::initializer_list<std::u32string_view> words) {
  for (const std::u32string_view w : words) {
    if (starts_with(t, i, w)) return w;
  }
  return {};
}

std::size_t digits_from(const std::u32string& t, std::size_t i) {
  std::size_t n = 0;
  while (i + n < t.size() && is_digit(t[i + n])) ++n;
  return n;
}

std::size_t cjk_run_from(const std::u32string& t, std::size_t i) {
  std::size_t n = 0;
  while (i + n < t.size() && unicode::is_cjk_ideograph(t[i + n])) ++n;
  return n;
}

// Where a run of exactly `count` digits starting at i ends, or kNone.
std::size_t exact_digits(const std::u32string& t, std::size_t i, std::size_t count) {
  return digits_from(t, i) == count ? i + count : kNone;
}

// A mainland mobile number at i: 1[3-9] and nine digits, whole or grouped 3-4-4.
std::size_t mobile_end(const std::u32string& t, std::size_t i) {
  if (i + 1 >= t.size() || t[i] != U'1' || t[i + 1] < U'3' || t[i + 1] > U'9') return kNone;
  if (const std::size_t end = exact_digits(t, i, 11); end != kNone) return end;
  std::size_t j = exact_digits(t, i, 3);
  if (j == kNone || j >= t.size() || (t[j] != U'-' && t[j] != U' ')) return kNone;
  const char32_t group = t[j];
  j = exact_digits(t, j + 1, 4);
  if (j == kNone || j >= t.size() || t[j] != group) return kNone;
  return exact_digits(t, j + 1, 4);
}

// With the country code: +86 138..., +86-138..., or 86/0086 glued to the number (a lone 86
// before a blank is as likely a house number: 建国路86 13812345678).
std::size_t international_mobile_end(const std::u32string& t, std::size_t i) {
  if (const std::u32string_view code = word_at(t, i, {U"+86", U"0086", U"86"}); !code.empty()) {
    std::size_t j = i + code.size();
    if (code == U"+86" && j < t.size() && (t[j] == U' ' || t[j] == U'-')) ++j;
    if (const std::size_t end = mobile_end(t, j); end != kNone) return end;
  }
  return mobile_end(t, i);
}

// A landline with its area code at i: 025-84561234, (025)84561234, 0571-8888888-123,
// 0571-8888888转123, or a 400/800 service number written 400-123-4567.
std::size_t landline_end(const std::u32string& t, std::size_t i) {
  if (const std::u32string_view service = word_at(t, i, {U"400-", U"800-"}); !service.empty()) {
    const std::size_t j = exact_digits(t, i + 4, 3);
    return j != kNone && j < t.size() && t[j] == U'-' ? exact_digits(t, j + 1, 4) : kNone;
  }
  const bool bracketed = t[i] == U'(';
  const std::size_t code = bracketed ? i + 1 : i;
  const std::size_t code_digits = code < t.size() && t[code] == U'0' ? digits_from(t, code) : 0;
  if (code_digits != 3 && code_digits != 4) return kNone;
  std::size_t j = code + code_digits;
  if (bracketed) {
    if (j >= t.size() || t[j] != U')') return kNone;
    ++j;
    if (j < t.size() && (t[j] == U'-' || t[j] == U' ')) ++j;
  } else {
    if (j >= t.size() || t[j] != U'-') return kNone;
    ++j;
  }
  const std::size_t local = digits_from(t, j);
  if (local != 7 && local != 8) return kNone;
  j += local;
  if (j + 1 < t.size() && (t[j] == U'-' || t[j] == U'转')) {
    const std::size_t extension = digits_from(t, j + 1);
    if (extension >= 1 && extension <= 5) j += 1 + extension;
  }
  return j;
}

std::size_t phone_end(const std::u32string& t, std::size_t i) {
  if (const std::size_t end = international_mobile_end(t, i); end != kNone) return end;
  return landline_end(t, i);
}

// Common surnames (one character); a name beside a phone number starts with one.
constexpr std::u32string_view kSurnames =
    U"王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    U"姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔"
    U"向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕"
    U"单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚"
    U"娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池"
    U"查麻苑迟邝";
// Characters that end place names, never read as the last character of a person's name.
constexpr std::u32string_view kPlaceEnds =
    U"路街道巷弄号楼栋幢座层室村镇乡区县市省州园苑城店厦场馆院校司局所站庄湾坊屯寨桥港口门居府宅阁轩社队组部厂行井湖塘坝岭坡洲岛";

bool looks_like_a_name(std::u32string_view run) {
  return run.size() >= 2 && run.size() <= 3 && kSurnames.find(run.front()) != std::u32string_view::npos &&
         kPlaceEnds.find(run.back()) == std::u32string_view::npos;
}

// How a delivery note opens: a request (请放门卫), when to come (工作日送货), where to leave
// the parcel (放快递柜), whom to call (到了打电话). No address element starts with these,
// and no address contains the first list at all, so a note that opens with one of them is
// read wherever it stands, even glued to the address (二单元到了打电话). The second list
// opens a note only at a field's start or inside a bracket: 请 alone, or 送到, could be
// inside a name, and 货到 ends 百货 before 到了打电话. 勿 and 周末 only with what follows
// them: 勿忘我 and 周末 name shops.
constexpr std::u32string_view kNoteOpeners[] = {
    U"请放", U"请送", U"请勿", U"请联系", U"请提前", U"请打", U"请致电", U"请电话", U"麻烦", U"烦请", U"务必",
    U"千万不要", U"千万别", U"到了打", U"到了请", U"到了联系", U"到了电话", U"到货请", U"到货打", U"到货电话",
    U"送货上门", U"放门卫", U"放前台", U"放快递", U"放驿站", U"放丰巢", U"可暂放", U"可存放", U"暂放", U"可放",
    U"周末不", U"周末勿", U"工作日", U"节假日", U"不要放", U"不要送", U"不要打", U"勿放", U"勿送", U"勿打", U"谢谢",
    U"提前联系", U"提前打电话", U"提前电话", U"电话联系", U"打电话", U"先打电话", U"先联系", U"短信通知", U"联系我"};
constexpr std::u32string_view kFieldNoteOpeners[] = {U"请", U"货到", U"到了", U"到货", U"送货", U"送到", U"送至", U"放在",
                                                     U"放到", U"放门", U"帮忙", U"周末请", U"周末送", U"周末收", U"先电话"};

template <std::size_t N>
bool opens_with(const std::u32string& t, std::size_t i, const std::u32string_view (&openers)[N]) {
  return std::any_of(std::begin(openers), std::end(openers), [&](std::u32string_view w) { return starts_with(t, i, w); });
}

// Whether a note could open with c: every address character is asked, every round of
// normalization, and trying each opener there cost more than the rest of normalizing.
bool could_open_a_note(char32_t c) {
  static const std::u32string firsts = [] {
    std::u32string s;
    for (const std::u32string_view w : kNoteOpeners) s.push_back(w.front());
    for (const std::u32string_view w : kFieldNoteOpeners) s.push_back(w.front());
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
  }();
  return std::binary_search(firsts.begin(), firsts.end(), c);
}

// Where the delivery note that starts at t[i] ends, or kNone. `out` is the text before it,
// as kept. In brackets, a note runs to its closing bracket or, left open, to the next
// bracket or the end; outside them, to the next separator that is not a blank.
std::size_t delivery_note_end(const std::u32string& t, std::size_t i, const std::u32string& out) {
  const bool bracket = t[i] == U'(';
  if (!could_open_a_note(bracket ? (i + 1 < t.size() ? t[i + 1] : 0) : t[i])) return kNone;
  if (bracket) {
    if (!opens_with(t, i + 1, kNoteOpeners) && !opens_with(t, i + 1, kFieldNoteOpeners)) return kNone;
    std::size_t j = i + 1;
    while (j < t.size() && t[j] != U'(' && t[j] != U')') ++j;
    return j < t.size() && t[j] == U')' ? j + 1 : j;
  }
  const bool at_field_start = out.empty() || is_separator(out.back()) || out.back() == U'(';
  if (!opens_with(t, i, kNoteOpeners) && !(at_field_start && opens_with(t, i, kFieldNoteOpeners))) return kNone;
  std::size_t j = i;
  while (j < t.size() && (is_blank(t[j]) || !is_separator(t[j])) && t[j] != U'(' && t[j] != U')') ++j;
  return j;
}

// Emoji and pictographs (😀 ⭐ ☎ ✔) say nothing about a place. Dingbat digits (❶) are
// digits, for variant folding.
bool is_pictograph(char32_t c) {
  if (c >= 0x2776 && c <= 0x2793) return false;
  return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || (c >= 0x2B00 && c <= 0x2BFF) ||
         (c >= 0x2300 && c <= 0x23FF) || c == 0xFE0E || c == 0xFE0F;
}

class Stripper {
 public:
  Stripper(const std::u32string& text, bool drop_names) : t_(text), drop_names_(drop_names) {}

  std::u32string run() {
    out_.reserve(t_.size());
    std::size_t i = 0;
    while (i < t_.size()) {
      const std::size_t next = annotation_end(i);
      if (next == kNone) {
        out_.push_back(t_[i++]);
      } else {
        i = next;
        drop_emptied_bracket(i);
        // One separator stands for the dropped field: "A, 13812345678, B" is "A, B".
        if (out_.empty() || is_separator(out_.back())) {
          while (i < t_.size() && is_separator(t_[i])) ++i;
        }
      }
    }
    return std::move(out_);
  }

 private:
  // The first out_ position of the run of at most kMostGap characters before `end` that
  // `skip` accepts.
  template <typename Skip>
  std::size_t back_over(std::size_t end, Skip skip) const {
    std::size_t k = end;
    while (k > 0 && end - k < kMostGap && skip(out_[k - 1])) --k;
    return k;
  }

  // An annotation that was all a bracket held takes the bracket with it: XX店(电话 0571-88888888).
  void drop_emptied_bracket(std::size_t& i) {
    const std::size_t k = back_over(out_.size(), is_blank);
    const std::size_t j = skip_blanks(t_, i);
    if (k > 0 && out_[k - 1] == U'(' && j < t_.size() && t_[j] == U')') {
      out_.resize(k - 1);
      i = j + 1;
    }
  }

  bool at_field_start() const { return out_.empty() || is_separator(out_.back()) || out_.back() == U'('; }

  // Where an annotation that starts at i ends, or kNone. May also drop a label or a name
  // already copied to out_.
  std::size_t annotation_end(std::size_t i) {
    if (const std::size_t end = landmark_hint_end(i); end != kNone) return end;
    if (const std::size_t end = postcode_end(i); end != kNone) return end;
    if (const std::size_t end = labelled_name_end(i); end != kNone) return end;
    if (const std::size_t end = address_label_end(i); end != kNone) return end;
    if (i == 0 || !is_digit(t_[i - 1])) {
      if (const std::size_t end = phone_end(t_, i); end != kNone) return dropped_phone(end);
    }
    return kNone;
  }

  // (近新街口), (靠近地铁站), (距地铁2号线200米).
  std::size_t landmark_hint_end(std::size_t i) const {
    if (t_[i] != U'(') return kNone;
    const std::size_t landmark = word_end(t_, i + 1, {U"近", U"靠近", U"临近", U"邻近", U"紧邻", U"距"});
    if (landmark == kNone) return kNone;
    // A hint is short; a longer bracket is more likely part of the address. Blanks do not count.
    constexpr std::size_t kLongestLandmark = 22;
    std::size_t length = 0;
    for (std::size_t j = landmark; j < t_.size() && length <= kLongestLandmark; ++j) {
      if (t_[j] == U'(') return kNone;
      // The landmark takes at least one character: "(近)" names none.
      if (t_[j] == U')') return length > 0 ? j + 1 : kNone;
      if (!is_blank(t_[j])) ++length;
    }
    return kNone;
  }

  std::size_t postcode_end(std::size_t i) const {
    const std::size_t label = word_end(t_, i, {U"邮政编码", U"邮编"});
    if (label == kNone) return kNone;
    std::size_t j = skip_blanks(t_, label);
    if (j < t_.size() && is_colon(t_[j])) j = skip_blanks(t_, j + 1);
    return exact_digits(t_, j, 6);
  }

  // 收件人:张三 drops the label and the name; a longer run after the label may be the
  // address itself, so only the label goes.
  std::size_t labelled_name_end(std::size_t i) const {
    const std::size_t label = word_end(t_, i, {U"收件人", U"收货人", U"联系人", U"姓名"});
    if (label == kNone) return kNone;
    std::size_t j = skip_blanks(t_, label);
    if (j >= t_.size() || !is_colon(t_[j])) return kNone;
    j = skip_blanks(t_, j + 1);
    const std::size_t name = cjk_run_from(t_, j);
    return name >= 1 && name <= 4 ? j + name : j;
  }

  std::size_t address_label_end(std::size_t i) const {
    if (!at_field_start()) return kNone;
    const std::size_t label = word_end(t_, i, {U"收货地址", U"收件地址", U"送货地址", U"详细地址", U"地址"});
    if (label == kNone) return kNone;
    const std::size_t j = skip_blanks(t_, label);
    return j < t_.size() && is_colon(t_[j]) ? j + 1 : kNone;
  }

  // The phone number ends at `end`: drops its label, then a name that stands beside it.
  std::size_t dropped_phone(std::size_t end) {
    drop_phone_label();
    if (!drop_names_ || drop_name_before()) return end;
    std::size_t j = end;
    while (j < t_.size() && is_separator(t_[j])) ++j;
    const std::size_t name = cjk_run_from(t_, j);
    const bool alone = j + name == t_.size() || is_separator(t_[j + name]);
    return alone && looks_like_a_name(std::u32string_view(t_).substr(j, name)) ? j + name : end;
  }

  void drop_phone_label() {
    std::size_t k = back_over(out_.size(), is_blank);
    if (k > 0 && is_colon(out_[k - 1])) k = back_over(k - 1, is_blank);
    const std::size_t label =
        word_start(out_, k, {U"联系电话", U"联系方式", U"电话号码", U"手机号码", U"固定电话", U"移动电话", U"手机号",
                             U"电话", U"手机", U"座机", U"固话", U"tel", U"Tel", U"TEL", U"phone", U"Phone", U"PHONE",
                             U"mobile", U"Mobile"});
    // A Latin label is a word of its own: not the end of Hotel or iPhone.
    const auto is_letter = [](char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z'); };
    if (label != kNone && (label == 0 || !is_letter(out_[label - 1]) || !is_letter(out_[label]))) out_.resize(label);
  }

  bool drop_name_before() {
    const std::size_t k = back_over(out_.size(), is_separator);
    // A name has at most three characters; a fourth says the run is something else.
    const std::size_t start = back_over(k, [](char32_t c) { return unicode::is_cjk_ideograph(c); });
    if (k - start > 3 || (start > 0 && !is_separator(out_[start - 1])) ||
        !looks_like_a_name(std::u32string_view(out_).substr(start, k - start))) {
      return false;
    }
    out_.resize(start);
    return true;
  }

  const std::u32string& t_;
  const bool drop_names_;
  std::u32string out_;
};

bool has_content(const std::u32string& s) {
  return std::any_of(s.begin(), s.end(), [](char32_t c) { return !is_separator(c); });
}

}  // namespace

void drop_annotations(std::u32string& text) {
  // The rules read past what normalizing drops anyway and what never separates fields:
  // zero-width spaces and byte-order marks (inside a phone number or a label they would hide
  // it), and a dot inside a name (涂·辽 is the name 涂辽 beside a phone number).
  std::u32string shown;
  shown.reserve(text.size());
  std::copy_if(text.begin(), text.end(), std::back_inserter(shown),
               [](char32_t c) { return !is_pictograph(c) && !unicode::is_control(c); });
  std::u32string visible;
  visible.reserve(shown.size());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const bool in_a_name = is_name_dot(shown[i]) && !visible.empty() && unicode::is_cjk_ideograph(visible.back()) &&
                           i + 1 < shown.size() && unicode::is_cjk_ideograph(shown[i + 1]);
    if (!in_a_name) visible.push_back(shown[i]);
  }
  // What reads as a name beside a phone number may be the whole address (a shop called
  // 周六福); a row that is nothing but a phone number or a hint stays as it is, a
  // placeholder rather than an empty address.
  for (const bool drop_names : {true, false}) {
    if (std::u32string stripped = Stripper(visible, drop_names).run(); has_content(stripped)) {
      if (stripped != text) text = std::move(stripped);
      return;
    }
  }
}

void drop_delivery_notes(std::u32string& text) {
  // Most addresses hold no character a note opens with, and need no copy.
  if (std::none_of(text.begin(), text.end(), could_open_a_note)) return;
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = delivery_note_end(text, i, out);
    if (end == kNone) {
      out.push_back(text[i++]);
      continue;
    }
    i = end;
    // A separator before the note stood for it: (A,请放门卫) is (A), and A,请放门卫,B is A,B.
    if (i < text.size() && text[i] == U')') {
      while (!out.empty() && is_separator(out.back())) out.pop_back();
    } else if (out.empty() || is_separator(out.back())) {
      while (i < text.size() && is_separator(text[i])) ++i;
    }
  }
  if (has_content(out) && out != text) text = std::move(out);
}

}  // namespace geoalign::text
