"""geoalign's address normalization (src/text/normalize.h) in Python, written from its
description, for the reference and for training: the same options, in the same order.
The traditional-character table is the one the C++ build compiles in."""
import os
import re
import unicodedata

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "src", "text", "traditional_chars.inc")
DASHES = set("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63")
BRACKETS = {"[": "(", "]": ")", "【": "(", "】": ")", "「": "(", "」": ")", "『": "(", "』": ")",
            "〔": "(", "〕": ")", "〖": "(", "〗": ")"}
LEADING_NOISE = set("。，,、;；:：.!！?？\"'`“”‘’«»·•…_")
TRAILING_NOISE = LEADING_NOISE | {"-"}
NAME_DOTS = set("\u00b7\u2022\u2027\u2219\u30fb\uff65.")
PYTHON_SPACES = set("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {
    chr(c) for c in range(0x2000, 0x200B)}
CJK = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
       (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]


def _traditional():
    with open(TABLE, encoding="utf-8") as f:
        chars = "".join(re.findall(r'^"(.*)"$', f.read(), re.M))
    return dict(zip(chars[0::2], chars[1::2]))


def _digit_variants():
    out = {}
    for first, last, value in [(0x2460, 0x2473, 1), (0x2474, 0x2487, 1), (0x2488, 0x249B, 1), (0x24F5, 0x24FE, 1),
                               (0x2776, 0x277F, 1), (0x2780, 0x2789, 1), (0x278A, 0x2793, 1), (0x24EB, 0x24F4, 11),
                               (0x2074, 0x2079, 4), (0x2081, 0x2089, 1)]:
        for cp in range(first, last + 1):
            out[chr(cp)] = str(value + cp - first)
    out.update({"\u24ea": "0", "\u24ff": "0", "\u2070": "0", "\u2080": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3"})
    return out


SIMPLIFIED = _traditional()
DIGITS = _digit_variants()


def _is_cjk(c):
    return any(lo <= ord(c) <= hi for lo, hi in CJK)


def _is_punctuation(c):
    cp = ord(c)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or \
        unicodedata.category(c).startswith("P")


def _is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def _is_control(c):
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")


def fullwidth_to_halfwidth(text):
    return "".join(chr(ord(c) - 0xFEE0) if 0xFF01 <= ord(c) <= 0xFF5E else " " if c == "\u3000" else c
                   for c in text)


def clean_whitespace(text):
    """Drops controls and blanks beside an ideograph or punctuation; one space elsewhere."""
    splits_off = lambda c: _is_cjk(c) or _is_punctuation(c)  # noqa: E731
    out, pending = [], False
    for c in text:
        if c in PYTHON_SPACES or _is_whitespace(c):
            pending = bool(out)
        elif not _is_control(c):
            if pending and not splits_off(out[-1]) and not splits_off(c):
                out.append(" ")
            pending = False
            out.append(c)
    return "".join(out)


def separators_to_blanks(text):
    """A slash, bar or backslash whose nearest character on either side, past blanks and
    other such marks, is an ideograph becomes a blank (北京/朝阳区: two parts of an address)."""
    marks = "/|\\"
    kept = [c for c in text]
    for i, c in enumerate(text):
        if c not in marks:
            continue
        left = next((d for d in reversed(text[:i]) if d not in marks and not _blank(d)), "")
        right = next((d for d in text[i + 1:] if d not in marks and not _blank(d)), "")
        if (left and _is_cjk(left)) or (right and _is_cjk(right)):
            kept[i] = " "
    return "".join(kept)


NAMED_REFERENCES = {"nbsp": "\u00a0", "amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'", "middot": "\u00b7",
                    "bull": "\u2022", "ndash": "\u2013", "mdash": "\u2014", "hellip": "\u2026", "ldquo": "\u201c",
                    "rdquo": "\u201d", "lsquo": "\u2018", "rsquo": "\u2019", "ensp": "\u2002", "emsp": "\u2003",
                    "thinsp": "\u2009", "times": "\u00d7", "deg": "\u00b0"}


def _reference(body):
    """The character an HTML reference's body (nbsp, #183, #x4E2D) names, or None."""
    if body in NAMED_REFERENCES:
        return NAMED_REFERENCES[body]
    m = re.fullmatch(r"#(?:([0-9]+)|[xX]([0-9a-fA-F]+))", body)
    if not m:
        return None
    value = int(m.group(1), 10) if m.group(1) else int(m.group(2), 16)
    if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF or (value < 0x20 and value not in (9, 10)):
        return None
    return chr(value)


def decode_markup(text):
    """HTML character references and written-out backslash escapes (text/markup.h), until none is left."""
    while True:
        out, i, changed = [], 0, False
        while i < len(text):
            if text[i] == "&":
                semicolon = text.find(";", i + 1)
                if semicolon != -1 and semicolon - i - 1 <= 10:
                    c = _reference(text[i + 1:semicolon])
                    if c is not None:
                        out.append(c)
                        i, changed = semicolon + 1, True
                        continue
            if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "nrt":
                out.append(" ")
                i, changed = i + 2, True
                continue
            out.append(text[i])
            i += 1
        if not changed:
            return text
        text = "".join(out)


def fold_variant_characters(text):
    out = []
    for c in text:
        if c in DIGITS:
            out.append(DIGITS[c])
        elif c in DASHES:
            out.append("-")
        else:
            c = BRACKETS.get(c, c)
            out.append(SIMPLIFIED.get(c, c))
    return "".join(out)


def fold_variant_sequences(text):
    out = []
    for i, c in enumerate(text):
        if c == "-" and out and out[-1] == "-":
            continue
        if c in NAME_DOTS and out and _is_cjk(out[-1]) and i + 1 < len(text) and _is_cjk(text[i + 1]):
            continue
        out.append("号" if c == "#" and out and "0" <= out[-1] <= "9" else c)
    begin, end = 0, len(out)
    while begin < end and out[begin] in LEADING_NOISE:
        begin += 1
    while end > begin and out[end - 1] in TRAILING_NOISE:
        end -= 1
    return "".join(out[begin:end]) if end > begin else "".join(out)


BASEMENT = re.compile(r"(?:负|地下)(?:([一二三四五六七八九])|([1-9][0-9]?)(?![0-9]))(?:[层楼]|[Ff](?![A-Za-z0-9])[层楼]?)"
                      r"|(?<![A-Za-z0-9])[Bb]([1-9])(?:层|[Ff](?![A-Za-z0-9])[层楼]?)")
F_FLOOR = re.compile(r"(?<![A-Za-z0-9])([0-9]{1,3})[Ff](?![A-Za-z0-9号栋座幢室单])([层楼]?)")


def fold_floor_spellings(text):
    """负一楼, 地下1层, B1层 and B1F as 负1层; 11F as 11层 (text/floor_folding.h)."""
    out, i = [], 0
    while i < len(text):
        m = BASEMENT.match(text, i)
        if m:
            chinese, digits, b = m.groups()
            number = str("一二三四五六七八九".index(chinese) + 1) if chinese else digits or b
            out.append("负" + number + "层")
            i = m.end()
            continue
        if "0" <= text[i] <= "9" and (i == 0 or not _ascii_alnum(text[i - 1])):
            j = i
            while j < len(text) and "0" <= text[j] <= "9":
                j += 1
            m = F_FLOOR.match(text, i)
            if m and m.end(1) == j:
                out.append(m.group(1) + (m.group(2) or "层"))
                i = m.end()
                continue
            out.append(text[i:j])
            i = j
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _ascii_alnum(c):
    return c.isascii() and c.isalnum()


SEPARATORS = set(",，;；、|。\"'`“”‘’«»!！?？")
SURNAMES = set(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔"
    "向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕"
    "单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚"
    "娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池"
    "查麻苑迟邝")
PLACE_ENDS = set("路街道巷弄号楼栋幢座层室村镇乡区县市省州园苑城店厦场馆院校司局所站庄湾坊屯寨桥港口门居府宅阁轩社队组部厂行"
                 "井湖塘坝岭坡洲岛")
PHONE_LABELS = ["联系电话", "联系方式", "电话号码", "手机号码", "固定电话", "移动电话", "手机号", "电话", "手机", "座机", "固话",
                "tel", "Tel", "TEL", "phone", "Phone", "PHONE", "mobile", "Mobile"]
MOST_GAP = 8  # how far back from a phone number its label or a name may stand
MOBILE = re.compile(r"1[3-9]\d{9}(?!\d)|1[3-9]\d \d{4} \d{4}(?!\d)|1[3-9]\d-\d{4}-\d{4}(?!\d)", re.A)
LANDLINE = re.compile(r"[48]00-\d{3}-\d{4}(?!\d)|(?:0\d{2,3}-|\(0\d{2,3}\)[- ]?)\d{7,8}(?!\d)(?:[-转]\d{1,5}(?!\d))?", re.A)
SIX_DIGITS = re.compile(r"\d{6}(?!\d)", re.A)


def _blank(c):
    return c in PYTHON_SPACES or _is_whitespace(c)


def _separator(c):
    return _blank(c) or c in SEPARATORS


def _name(run):
    return 2 <= len(run) <= 3 and run[0] in SURNAMES and run[-1] not in PLACE_ENDS


def _cjk_run(text, i):
    j = i
    while j < len(text) and _is_cjk(text[j]):
        j += 1
    return j - i


def _skip_blanks(text, i):
    while i < len(text) and _blank(text[i]):
        i += 1
    return i


def _word_end(text, i, words):
    """Where the first of words that starts at i ends, blanks between its characters allowed."""
    for w in words:
        j = i
        for k, c in enumerate(w):
            if k:
                j = _skip_blanks(text, j)
            if j >= len(text) or text[j] != c:
                break
            j += 1
        else:
            return j
    return None


def _word_start(chars, end, words):
    """Where the first of words that ends at end starts, blanks between its characters allowed."""
    for w in words:
        j = end
        for k in range(len(w) - 1, -1, -1):
            if k + 1 < len(w):
                while j and _blank(chars[j - 1]):
                    j -= 1
            if not j or chars[j - 1] != w[k]:
                break
            j -= 1
        else:
            return j
    return None


NOTE_OPENERS = ("请放", "请送", "请勿", "请联系", "请提前", "请打", "请致电", "请电话", "麻烦", "烦请", "务必",
                "千万不要", "千万别", "到了打", "到了请", "到了联系", "到了电话", "到货请", "到货打", "到货电话",
                "送货上门", "放门卫", "放前台", "放快递", "放驿站", "放丰巢", "可暂放", "可存放", "暂放", "可放",
                "周末不", "周末勿", "工作日", "节假日", "不要放", "不要送", "不要打", "勿放", "勿送", "勿打", "谢谢",
                "提前联系", "提前打电话", "提前电话", "电话联系", "打电话", "先打电话", "先联系", "短信通知", "联系我")
FIELD_NOTE_OPENERS = ("请", "货到", "到了", "到货", "送货", "送到", "送至", "放在", "放到", "放门", "帮忙",
                      "周末请", "周末送", "周末收", "先电话")


def _delivery_note_end(text, i, out):
    """A bracketed delivery note to its closing bracket (left open: to the next bracket or the
    end), or one outside brackets to the next separator that is not a blank."""
    opens = lambda j, words: any(text.startswith(w, j) for w in words)  # noqa: E731
    if text[i] == "(":
        if not opens(i + 1, NOTE_OPENERS + FIELD_NOTE_OPENERS):
            return None
        j = i + 1
        while j < len(text) and text[j] not in "()":
            j += 1
        return j + 1 if j < len(text) and text[j] == ")" else j
    at_field_start = not out or _separator(out[-1]) or out[-1] == "("
    if not opens(i, NOTE_OPENERS) and not (at_field_start and opens(i, FIELD_NOTE_OPENERS)):
        return None
    j = i
    while j < len(text) and (_blank(text[j]) or not _separator(text[j])) and text[j] not in "()":
        j += 1
    return j


def drop_delivery_notes(text):
    """Delivery notes in brackets or beside the address (text/annotations.h); never all of the text."""
    out, i = [], 0
    while i < len(text):
        end = _delivery_note_end(text, i, out)
        if end is None:
            out.append(text[i])
            i += 1
            continue
        i = end
        if i < len(text) and text[i] == ")":  # a separator before the note stood for it
            while out and _separator(out[-1]):
                out.pop()
        elif not out or _separator(out[-1]):
            while i < len(text) and _separator(text[i]):
                i += 1
    return "".join(out) if not all(_separator(c) for c in out) else text


def _pictograph(c):
    cp = ord(c)
    if 0x2776 <= cp <= 0x2793:
        return False
    return 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF or 0x2300 <= cp <= 0x23FF or \
        cp in (0xFE0E, 0xFE0F)


def _hint_end(text, i):
    if text[i] != "(":
        return None
    j = _word_end(text, i + 1, ("近", "靠近", "临近", "邻近", "紧邻", "距"))
    if j is None:
        return None
    length = 0
    while j < len(text) and length <= 22:
        if text[j] == "(":
            return None
        if text[j] == ")":
            return j + 1 if length else None
        if not _blank(text[j]):
            length += 1
        j += 1
    return None


def _postcode_end(text, i):
    label = _word_end(text, i, ("邮政编码", "邮编"))
    if label is None:
        return None
    j = _skip_blanks(text, label)
    if j < len(text) and text[j] in ":：":
        j = _skip_blanks(text, j + 1)
    m = SIX_DIGITS.match(text, j)
    return m.end() if m else None


def _phone_end(text, i):
    for code in ("+86", "0086", "86"):
        if text.startswith(code, i):
            j = i + len(code)
            if code == "+86" and j < len(text) and text[j] in " -":
                j += 1
            m = MOBILE.match(text, j)
            if m:
                return m.end()
            break
    m = MOBILE.match(text, i) or LANDLINE.match(text, i)
    return m.end() if m else None


def drop_annotations(text):
    """Phone numbers, a name beside one, labelled names and postcodes, field labels,
    bracketed landmark hints and pictographs (text/annotations.h); never all of the text."""
    shown = "".join(c for c in text if not _is_control(c) and not _pictograph(c))
    # A dot inside a name (涂·辽) hides no field: the rules read past it.
    visible = "".join(c for i, c in enumerate(shown) if not (
        c in NAME_DOTS and 0 < i < len(shown) - 1 and _is_cjk(shown[i - 1]) and _is_cjk(shown[i + 1])))
    for drop_names in (True, False):
        out = _strip(visible, drop_names)
        if not all(_separator(c) for c in out):
            return out
    return text


def _strip(text, drop_names):
    out, i = [], 0
    while i < len(text):
        end = _hint_end(text, i)
        if end is None:
            end = _postcode_end(text, i)
        if end is None:
            label = _word_end(text, i, ("收件人", "收货人", "联系人", "姓名"))
            if label is not None:
                j = _skip_blanks(text, label)
                if j < len(text) and text[j] in ":：":
                    j = _skip_blanks(text, j + 1)
                    n = _cjk_run(text, j)
                    end = j + n if 1 <= n <= 4 else j
        if end is None and (not out or _separator(out[-1]) or out[-1] == "("):
            label = _word_end(text, i, ("收货地址", "收件地址", "送货地址", "详细地址", "地址"))
            if label is not None:
                j = _skip_blanks(text, label)
                if j < len(text) and text[j] in ":：":
                    end = j + 1
        if end is None and (i == 0 or not "0" <= text[i - 1] <= "9"):
            end = _phone_end(text, i)
            if end is not None:
                end = _drop_phone_neighbours(text, out, end, drop_names)
        if end is None:
            out.append(text[i])
            i += 1
            continue
        i = end
        k = _back_over(out, len(out), _blank)
        j = _skip_blanks(text, i)
        if k and out[k - 1] == "(" and j < len(text) and text[j] == ")":  # a bracket the annotation emptied
            del out[k - 1:]
            i = j + 1
        if not out or _separator(out[-1]):
            while i < len(text) and _separator(text[i]):
                i += 1
    return "".join(out)


def _back_over(chars, end, skip):
    """The first position of the run of at most MOST_GAP characters before end that skip accepts."""
    k = end
    while k and end - k < MOST_GAP and skip(chars[k - 1]):
        k -= 1
    return k


def _drop_phone_neighbours(text, out, end, drop_names):
    """Drops the phone's label and a name before it from out, or returns the end of a name after it."""
    k = _back_over(out, len(out), _blank)
    if k and out[k - 1] in ":：":
        k = _back_over(out, k - 1, _blank)
    label = _word_start(out, k, PHONE_LABELS)
    latin = lambda c: "a" <= c <= "z" or "A" <= c <= "Z"  # noqa: E731
    if label is not None and (label == 0 or not latin(out[label - 1]) or not latin(out[label])):
        del out[label:]
    if not drop_names:
        return end
    k = _back_over(out, len(out), _separator)
    start = _back_over(out, k, _is_cjk)
    if k - start <= 3 and (start == 0 or _separator(out[start - 1])) and _name("".join(out[start:k])):
        del out[start:]
        return end
    j = end
    while j < len(text) and _separator(text[j]):
        j += 1
    n = _cjk_run(text, j)
    if (j + n == len(text) or _separator(text[j + n])) and _name(text[j:j + n]):
        return j + n
    return end


def _normalize_once(text, options):
    text = unicodedata.normalize("NFC", text)
    if options.get("fullwidth_to_halfwidth"):
        text = fullwidth_to_halfwidth(text)
    if options.get("decode_markup"):
        text = decode_markup(text)
    if options.get("fold_variants"):
        text = fold_variant_characters(text)
    if options.get("drop_annotations"):
        text = drop_annotations(text)
    if options.get("clean_whitespace"):
        text = clean_whitespace(separators_to_blanks(text))
    if options.get("fold_variants"):
        text = fold_floor_spellings(fold_variant_sequences(text))
    if options.get("drop_annotations"):
        text = drop_delivery_notes(text)
    return text


def normalize(text, options):
    """options: the "normalize" object of a model's config.json ("geoalign" key)."""
    text = _normalize_once(text, options)
    if options.get("drop_annotations") or options.get("decode_markup") or options.get("fold_variants"):
        while True:  # until nothing changes, as the engine does
            again = _normalize_once(text, options)
            if again == text:
                break
            text = again
    if options.get("traditional_to_simplified"):
        raise SystemExit("the reference does not implement traditional_to_simplified")
    return text
