#!/usr/bin/env python3
"""Counts how many real addresses lie in each division: the prior of the parser's guess.

Where an address fits several places equally well (朝阳区 alone: Beijing or Changchun) and
its other elements do not settle it, `geoalign parse` fills the levels with the reading
the most real addresses lie in (docs/parsing.md, "A best guess beside every ambiguity").
This script parses the distinct addresses of address_ner/train.txt (the tagged training
addresses, as plain text) and ccks2021_address_relevance/pairs.tsv (both columns) with
`geoalign parse --no-guess` and counts, once per address, every division on the part of
its chain the parser is sure of, and every division an admin element (prov, city,
district, town) names with only one reading inside or above that part, with the
divisions above it. 杭州市余杭区南苑街道 (ambiguous: 南苑街道 moved from 余杭区 to 临平区 in
2021; sure down to 杭州市) counts for 浙江省, 杭州市, 余杭区, 临平区 and its 南苑街道;
南苑街道 alone, with seven readings, counts for nothing. Names are read as the C++
gazetteer reads them: full names and their short forms (src/geo/gazetteer.cpp,
short_names), a reading at the level the element was tagged at first.

It writes models/default/parser/division_counts.tsv: one `code<TAB>count` row per division
counted at least once, nothing else: no address, name or other text of the data.

    /usr/bin/python3 tools/gazetteer/build_prior.py [--data ../shared/data]
        [--geoalign build/release/geoalign] [--model models/default/parser] [--check]

--check compares instead of writing (exit status 1 when the vendored file differs). The
counts depend on the parser's tagger, gazetteer and former divisions, not on the prior
itself (--no-guess): regenerate after changing those. About 10 seconds.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def conll_texts(path):
    """The addresses of a CoNLL file (`token TAG` lines, blank lines between addresses)."""
    texts, tokens = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if tokens:
                    texts.append("".join(tokens))
                    tokens = []
                continue
            tokens.append(line.rsplit(" ", 1)[0] if " " in line[1:] else line[0])
    if tokens:
        texts.append("".join(tokens))
    return texts


def pair_texts(path):
    texts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            texts.extend(line.rstrip("\n").split("\t")[:2])
    return texts


# src/geo/gazetteer.cpp's kNationalities and short_names, to read names as the parser does.
NATIONALITIES = (
    "蒙古 回 藏 维吾尔 苗 彝 壮 布依 朝鲜 满 侗 瑶 白 土家 哈尼 哈萨克 傣 黎 傈僳 佤 畲 高山 拉祜 水 东乡 纳西 景颇 "
    "柯尔克孜 土 达斡尔 仫佬 羌 布朗 撒拉 毛南 仡佬 锡伯 阿昌 普米 塔吉克 怒 乌孜别克 俄罗斯 鄂温克 德昂 保安 裕固 京 "
    "塔塔尔 独龙 鄂伦春 赫哲 门巴 珞巴 基诺").split()
SUFFIXES = {
    "prov": ("特别行政区", "自治区", "省", "市"),
    "city": ("自治州", "地区", "市", "盟", "州"),
    "district": ("自治县", "自治旗", "新区", "区", "县", "市", "旗"),
    "town": ("街道办事处", "街道", "镇", "乡", "苏木"),
}


def strip_nationalities(s, autonomous):
    while True:
        has_zu = s.endswith("族")
        if not has_zu and not autonomous:
            return s
        body = s[:-1] if has_zu else s
        if has_zu and body.endswith("各"):
            s = body[:-1]
            continue
        longest = max((len(n) for n in NATIONALITIES if body.endswith(n)), default=0)
        if longest and len(body) - longest >= 2:
            s = body[: len(body) - longest]
            continue
        return s


def short_names(name, level):
    for suffix in SUFFIXES[level]:
        if name.endswith(suffix):
            stem = strip_nationalities(name[: -len(suffix)], suffix.startswith("自治"))
            return [stem] if len(stem) >= 2 else []
    return []


def is_placeholder(name):
    return name in ("市辖区", "县") or name.endswith("直辖县级行政区划")


def load_divisions(path):
    """code -> (level, parent_code), and name -> codes (full and short names, as the parser's trie)."""
    parent, by_name = {}, collections.defaultdict(set)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            code, level, name, parent_code = line.rstrip("\n").split("\t")
            parent[code] = (level, parent_code)
            if is_placeholder(name):
                continue
            for n in [name] + short_names(name, level):
                by_name[n].add(code)
    return parent, by_name


def count(parses, divisions, by_name):
    def up(code):
        while code:
            yield code
            code = divisions[code][1]

    counts = collections.Counter()
    for parse in parses:
        sure = parse.get("admin", {}).get("adcode")  # the deepest division the parser is sure of
        above = set(up(sure)) if sure else set()
        located = set(above)
        for e in parse.get("elements", []):
            if e["tag"] not in ("prov", "city", "district", "town"):
                continue
            readings = [c for c in by_name.get(e["text"], ()) if not sure or c in above or sure in up(c)]
            # As the parser reads them: a reading at the level the element was tagged at first
            # (临平 tagged district is 临平区, not its 临平街道).
            at_level = [c for c in readings if divisions[c][0] == e["tag"]]
            if len(at_level) == 1 or len(readings) == 1:
                located.update(up((at_level or readings)[0]))
        counts.update(located)
    return counts


def main():
    import json

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(ROOT), "shared", "data"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default", "parser"))
    ap.add_argument("--out", default=None, help="default: MODEL/division_counts.tsv")
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = ap.parse_args()
    out_path = args.out or os.path.join(args.model, "division_counts.tsv")

    sources = [("address_ner/train.txt", conll_texts), ("ccks2021_address_relevance/pairs.tsv", pair_texts)]
    addresses = set()
    for rel, read in sources:
        addresses.update(t for t in read(os.path.join(args.data, rel)) if t.strip())
    addresses = sorted(addresses)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "addresses.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(addresses) + "\n")
        result = subprocess.run([args.geoalign, "parse", "--no-guess", "--model", args.model, path],
                                check=True, capture_output=True, text=True)
    parses = [json.loads(line) for line in result.stdout.splitlines()]
    if len(parses) != len(addresses):
        sys.exit(f"build_prior: {len(addresses)} addresses but {len(parses)} parses")
    counts = count(parses, *load_divisions(os.path.join(args.model, "divisions.tsv")))

    lines = [
        "# code\tcount: how many addresses lie in the division (the prior of the parser's guess; docs/parsing.md).",
        f"# Counted by tools/gazetteer/build_prior.py over the {len(addresses)} distinct addresses of "
        "address_ner/train.txt and ccks2021_address_relevance/pairs.tsv,",
        "# parsed with geoalign parse --no-guess: the chain the parser is sure of, and each division an admin element "
        "names with one reading inside or above it, with those above. Counts only.",
    ]
    lines += [f"{code}\t{n}" for code, n in sorted(counts.items())]
    text = "\n".join(lines) + "\n"
    if args.check:
        with open(out_path, encoding="utf-8") as f:
            same = f.read() == text
        print(f"{out_path}: {'up to date' if same else 'differs from a fresh count'}")
        sys.exit(0 if same else 1)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{out_path}: {len(counts)} divisions counted over {len(addresses)} addresses")


if __name__ == "__main__":
    main()
