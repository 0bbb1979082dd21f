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


def normalize(text, options):
    """options: the "normalize" object of a model's config.json ("geoalign" key)."""
    if options.get("fullwidth_to_halfwidth"):
        text = fullwidth_to_halfwidth(text)
    if options.get("fold_variants"):
        text = fold_variant_characters(text)
    if options.get("clean_whitespace"):
        text = clean_whitespace(text)
    if options.get("fold_variants"):
        text = fold_variant_sequences(text)
    if options.get("traditional_to_simplified"):
        raise SystemExit("the reference does not implement traditional_to_simplified")
    return text
