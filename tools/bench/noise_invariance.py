#!/usr/bin/env python3
"""Does invisible or meaningless noise change geoalign's answers?

Writes a noisy copy of a pairs file, scores both with `geoalign score`, and reports how
many labels changed and the largest probability difference. Each address gets, at
random positions (seeded):
  - zero-width spaces (U+200B) and byte-order marks (U+FEFF) anywhere, digits included;
  - a no-break space (U+00A0), an ideographic space (U+3000) or an ASCII blank between
    two Chinese characters, and blanks of those kinds at either end.
Blanks between two digits or Latin letters can carry meaning (1 2号 is not 12号) and are
never inserted.

    /usr/bin/python3 tools/bench/noise_invariance.py ../shared/data/ccks2021_address_relevance/pairs.tsv \
        [--geoalign build/release/geoalign] [--model models/default] [--precision fp32]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INVISIBLE = ["\u200b", "\ufeff"]
BLANKS = ["\u00a0", "\u3000", " "]


def is_cjk(c):
    return "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf"


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
    args = ap.parse_args()
    rng = random.Random(args.seed)
    clean_rows, noisy_rows = [], []
    for path in args.pairs:
        for line in open(path, encoding="utf-8"):
            f = line.rstrip("\n").split("\t")
            if len(f) < 2 or not f[0].strip() or not f[1].strip() or f[0].startswith("addr1"):
                continue
            clean_rows.append(f"{f[0]}\t{f[1]}\n")
            noisy_rows.append(f"{add_noise(f[0], rng, args.rate)}\t{add_noise(f[1], rng, args.rate)}\n")
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
    max_diff = max(abs(float(a) - float(b)) for c, n in zip(clean, noisy) for a, b in zip(c[1:], n[1:]))
    print(f"{len(clean)} pairs, precision {args.precision}, noise rate {args.rate}: {changed} labels changed, "
          f"max |probability difference| {max_diff:.2e}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
