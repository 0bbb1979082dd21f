"""geoalign's `fold_variants` normalization in Python, written from its description in
src/text/variant_folding.h (for the reference and for training); the character table is
the one the C++ build compiles in."""
import os
import re

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "src", "text", "traditional_chars.inc")
END_NOISE = set("。，,、;；:：.!！?？\"'`“”‘’«»·•…-_")
DASHES = set("-~\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2053\u301c\u30fc\ufe58\ufe63")
BRACKETS = {"[": "(", "]": ")", "【": "(", "】": ")", "「": "(", "」": ")", "『": "(", "』": ")",
            "〔": "(", "〕": ")", "〖": "(", "〗": ")"}


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


def fold_variants(text):
    out = []
    for c in text:
        if c in DIGITS:
            out.extend(DIGITS[c])
        elif c in DASHES:
            if not out or out[-1] != "-":
                out.append("-")
        elif c == "#" and out and "0" <= out[-1] <= "9":
            out.append("号")
        else:
            c = BRACKETS.get(c, c)
            out.append(SIMPLIFIED.get(c, c))
    begin, end = 0, len(out)
    while begin < end and out[begin] in END_NOISE:
        begin += 1
    while end > begin and out[end - 1] in END_NOISE:
        end -= 1
    return "".join(out[begin:end])
