#!/usr/bin/env python3
"""Does invisible or meaningless noise change geoalign's answers?

Writes a noisy copy of a pairs file, scores both with `geoalign score`, and reports how
many labels changed and the largest probability difference. With --kind blanks (the
default) each address gets, at random positions (seeded):
  - zero-width spaces (U+200B) and byte-order marks (U+FEFF) anywhere, digits included;
  - a no-break space (U+00A0), an ideographic space (U+3000) or an ASCII blank between
    two Chinese characters, and blanks of those kinds at either end.
Blanks between two digits or Latin letters can carry meaning (1 2号 is not 12号) and are
never inserted. With --kind invisible only the zero-width spaces and byte-order marks. With --kind variants it gets the spellings real files mix for one meaning
(what the `fold_variants` normalization folds): a character's traditional form (any of
them, from src/text/traditional_chars.inc), a lone digit circled (8 -> ⑧), 号 after a
number as #, dash and bracket variants, a dot between two Chinese characters (三一·新境界),
and quotes, a full stop or a comma around it. With --kind annotations (what the
`drop_annotations` normalization drops) one address of each pair, or both, gets what an
order or a contact card adds beside an address: a phone number (mobile or landline, in
the ways people write them, with or without a label), the recipient's name beside it, a
labelled name or postcode, a field label, or a bracketed landmark hint, at either end.
With --kind notes one address of each pair, or both, gets a delivery note (in brackets,
as a field of its own, or glued on), an emoji, or markup an export leaves (&nbsp;,
&amp;middot;, a written-out \\n): what `drop_annotations` and `decode_markup` read away.

    /usr/bin/python3 tools/bench/noise_invariance.py ../shared/data/ccks2021_address_relevance/pairs.tsv \
        [--kind blanks|variants|annotations|notes] [--geoalign build/release/geoalign] [--model models/default] [--precision fp32]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
import address_normalizer  # noqa: E402

TRADITIONAL = {}
for _t, _s in address_normalizer.SIMPLIFIED.items():
    TRADITIONAL.setdefault(_s, []).append(_t)
DASHES = ["—", "–", "―", "−", "‐"]
BRACKETS = [("【", "】"), ("[", "]"), ("「", "」"), ("〔", "〕")]
WRAPPERS = [("", ""), ("“", "”"), ('"', '"'), ("", "。"), ("", "，"), ("'", "'")]
NAME_DOTS = sorted(address_normalizer.NAME_DOTS)
INVISIBLE = ["\u200b", "\ufeff"]
BLANKS = ["\u00a0", "\u3000", " "]


def is_cjk(c):
    return "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf"


def add_invisible(text, rng, rate):
    """Zero-width spaces and byte-order marks anywhere, digits included: nothing else."""
    out = []
    for i, c in enumerate(text):
        out.append(c)
        if i + 1 < len(text) and rng.random() < rate:
            out.append(rng.choice(INVISIBLE))
    return "".join(out)


def add_noise(text, rng, rate):
    out = []
    for i, c in enumerate(text):
        out.append(c)
        if i + 1 < len(text):
            if rng.random() < rate:
                out.append(rng.choice(INVISIBLE))
            if is_cjk(c) and is_cjk(text[i + 1]) and rng.random() < rate:
                out.append(rng.choice(BLANKS) * rng.randint(1, 3))
    head = rng.choice(BLANKS + INVISIBLE) * rng.randint(0, 3)
    tail = rng.choice(BLANKS + INVISIBLE) * rng.randint(0, 3)
    return head + "".join(out) + tail


def add_variants(text, rng, rate):
    """Each variant at `rate` times five (these are rarer in a text than places for a blank), a
    dot between two Chinese characters at `rate`."""
    p = min(1.0, rate * 5)
    opening = rng.choice(BRACKETS)
    out = []
    for i, c in enumerate(text):
        digit = lambda j: 0 <= j < len(text) and "0" <= text[j] <= "9"  # noqa: E731
        if "1" <= c <= "9" and not digit(i - 1) and not digit(i + 1) and rng.random() < p:
            out.append(chr(0x2460 + int(c) - 1))
        elif c == "号" and out and "0" <= out[-1] <= "9" and rng.random() < p:
            out.append("#")
        elif c in TRADITIONAL and rng.random() < p:
            out.append(rng.choice(TRADITIONAL[c]))
        elif c == "-" and rng.random() < p:
            out.append(rng.choice(DASHES))
        elif c in "()" and rng.random() < p:
            out.append(opening[0] if c == "(" else opening[1])
        else:
            out.append(c)
        if is_cjk(c) and i + 1 < len(text) and is_cjk(text[i + 1]) and rng.random() < rate:
            out.append(rng.choice(NAME_DOTS))
    head, tail = rng.choice(WRAPPERS)
    return head + "".join(out) + tail


PHONES = ["13812345678", "159-0123-4567", "+86 186 1234 5678", "8613712345678", "025-84561234", "(0571)88881234",
          "0755-2345678转801", "400-820-8820"]
PHONE_LABELS = ["", "", "电话:", "手机：", "联系电话 ", "Tel:"]
NAMES = ["张三", "李小明", "王芳", "刘洋", "陈静", "欧阳娜", "赵磊"]
HINTS = ["(近新街口)", "（靠近地铁站）", "(距地铁2号线200米)", "【近人民广场】", "(临近市政府)"]
SEPARATORS = [" ", ",", "，", "  ", ";"]


def add_annotation(text, rng):
    """One thing that is not part of the address, before or after it."""
    sep = rng.choice(SEPARATORS)
    phone = rng.choice(PHONE_LABELS) + rng.choice(PHONES)
    name = rng.choice(NAMES)
    kind = rng.randrange(6)
    if kind == 0:
        return text + sep + phone if rng.random() < 0.5 else phone + sep + text
    if kind == 1:
        contact = name + sep + phone if rng.random() < 0.5 else phone + sep + name
        return text + sep + contact if rng.random() < 0.5 else contact + sep + text
    if kind == 2:
        return text + sep + rng.choice(["收件人:", "收货人：", "联系人: "]) + name
    if kind == 3:
        return text + rng.choice(["", " ", ","]) + rng.choice(["邮编", "邮编:", "邮政编码 "]) + "%06d" % rng.randrange(10**6)
    if kind == 4:
        return rng.choice(["收货地址:", "地址：", "详细地址: "]) + text
    return text + rng.choice(HINTS)


NOTES = ["请放门卫", "放快递柜", "送货上门", "周末不收货", "到了打电话", "工作日送货，谢谢", "可暂放隔壁超市代收",
         "不要放二楼", "请提前电话联系"]
EMOJI = ["😀", "⭐️", "☎", "🏠", "👍🏻", "❤️"]
MARKUP = ["&nbsp;", "&amp;nbsp;", "\\n", "\\r\\n", "&#160;"]


def add_note(text, rng):
    """A delivery note, an emoji or an export's markup."""
    kind = rng.randrange(5)
    if kind == 0:
        note = rng.choice(NOTES)
        return text + rng.choice(["(%s)", "（%s）", "【%s】"]) % note
    if kind == 1:
        return text + rng.choice(SEPARATORS) + rng.choice(NOTES)
    if kind == 2:
        return text + rng.choice(["到了打电话", "请放门卫", "暂放前台"])
    if kind == 3:
        cut = rng.randrange(len(text) + 1)
        return text[:cut] + rng.choice(EMOJI) + text[cut:]
    if "·" in text:
        return text.replace("·", rng.choice(["&middot;", "&amp;middot;", "&#183;"]))
    return text + rng.choice(MARKUP) if rng.random() < 0.5 else rng.choice(MARKUP) + text


def add_annotations(pair, rng, add=add_annotation):
    sides = rng.choice([(True, False), (False, True), (True, True)])
    return [add(t, rng) if noisy else t for t, noisy in zip(pair, sides)]


def score(geoalign, model, precision, path):
    out = subprocess.run([geoalign, "score", "--model", model, "--precision", precision, path], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return [line.split("\t")[2:] for line in out[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="+", help="addr1<TAB>addr2[<TAB>...] files")
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--precision", default="fp32")
    ap.add_argument("--rate", type=float, default=0.1, help="chance of noise after each character")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kind", choices=["blanks", "invisible", "variants", "annotations", "notes"], default="blanks")
    ap.add_argument("--show", type=int, default=10, help="print up to this many pairs whose label changed, clean and noisy")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    clean_rows, noisy_rows = [], []
    for path in args.pairs:
        for line in open(path, encoding="utf-8"):
            f = line.rstrip("\n").split("\t")
            if len(f) < 2 or not f[0].strip() or not f[1].strip() or f[0].startswith("addr1"):
                continue
            clean_rows.append(f"{f[0]}\t{f[1]}\n")
            if args.kind in ("annotations", "notes"):
                noisy = add_annotations(f[:2], rng, add_annotation if args.kind == "annotations" else add_note)
            else:
                noise = {"blanks": add_noise, "invisible": add_invisible}.get(args.kind, add_variants)
                noisy = [noise(f[0], rng, args.rate), noise(f[1], rng, args.rate)]
            noisy_rows.append(f"{noisy[0]}\t{noisy[1]}\n")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, rows in (("clean.tsv", clean_rows), ("noisy.tsv", noisy_rows)):
            files.append(os.path.join(tmp, name))
            with open(files[-1], "w", encoding="utf-8") as f:
                f.writelines(rows)
        clean, noisy = (score(args.geoalign, args.model, args.precision, p) for p in files)
    if len(clean) != len(noisy) or len(clean) != len(clean_rows):
        sys.exit(f"row counts differ: {len(clean_rows)} pairs, {len(clean)} and {len(noisy)} scored")
    changed = sum(c[0] != n[0] for c, n in zip(clean, noisy))
    shown = [i for i, (c, n) in enumerate(zip(clean, noisy)) if c[0] != n[0]][: args.show]
    for i in shown:
        print(f"changed {clean[i][0]} -> {noisy[i][0]}: {clean_rows[i].rstrip()!r} / {noisy_rows[i].rstrip()!r}")
    diffs = [max(abs(float(a) - float(b)) for a, b in zip(c[1:], n[1:])) for c, n in zip(clean, noisy)]
    max_diff = max(diffs)
    if max_diff > 0:
        worst = diffs.index(max_diff)
        print(f"moved most ({max_diff:.2e}): {clean_rows[worst].rstrip()!r} / {noisy_rows[worst].rstrip()!r}")
    print(f"{len(clean)} pairs, {args.kind}, precision {args.precision}, noise rate {args.rate}: {changed} labels changed, "
          f"max |probability difference| {max_diff:.2e}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
