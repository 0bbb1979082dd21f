#!/usr/bin/env python3
"""geoalign's parser and cpca side by side on tagged addresses: province, city, district.

cpca (https://github.com/DQinYuan/chinese_province_city_area_mapper) is the most used
Chinese province/city/district extractor. This script runs it and `geoalign parse` (with
its guess on, and with --no-guess) on the addresses of a CoNLL file of tagged addresses
(`char TAG` lines, BIO tags prov/city/district/..., blank lines between addresses; by
default address_ner/dev.txt, which no part of geoalign is trained or counted on) and
reports, for each level the address names (a prov, city or district span is tagged):

- right: the tool's name for that level agrees with the tagged span: the same name, or
  the span is a short form of it (杭州 for 杭州市, 广西 for 广西壮族自治区: a prefix of at
  least two characters), or both have the same stem as the parser's gazetteer forms short
  names (石柱县 and 石柱土家族自治县: 石柱). Where geoalign reads the span as a former division's name (江干区, now
  上城区 and 钱塘区), its `historical` note for that level naming the span counts too.
- wrong: the tool names something else at that level (leaving the level empty is neither).

and, over the addresses that tag a district but no city, how many the tool completes
with a city. A last row puts the guess to a test with a known answer: the addresses that
tag a district and a province or city, whose district `geoalign parse --no-guess` resolves
for certain with them (named, by a current name), are parsed again without their prov and
city spans (宁波市江东区... becomes 江东区...; 西湖区 alone is Hangzhou's or Nanchang's), and
a tool is right when its district's code is the one of the full address, wrong when it
gives another. A municipality's city is the municipality itself for both tools: where the
tool names the municipality and no city (cpca says 市辖区 or nothing there; geoalign says
北京市 once it reaches a district, nothing where it reaches only the municipality), the
city is taken to be the municipality.

cpca is not vendored: give its source folder (the repository's checkout, the folder
holding `cpca/`) with --cpca-src, or have it installed. It needs pandas and pyahocorasick
(Debian: python3-pandas, python3-ahocorasick). Without it the cpca column is left out.

    /usr/bin/python3 tools/bench/compare_cpca.py [--data ../shared/data/address_ner/dev.txt]
        [--geoalign build/release/geoalign] [--model models/default/parser] [--cpca-src DIR]
        [--json] [--failures LEVEL]

Nothing is written; only the table (markdown) or with --json the figures go to stdout.
--failures district prints, for each tool, the addresses whose district is wrong or missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "gazetteer"))
from build_prior import short_names  # noqa: E402  (the gazetteer's short names, as the C++ parser reads them)
LEVELS = ("prov", "city", "district")
LEVEL_TITLES = {"prov": "province", "city": "city", "district": "district"}
MUNICIPALITIES = ("北京市", "天津市", "上海市", "重庆市")


def read_conll(path, with_tags=False):
    """[(text, {tag: first span of that tag})] for each address; with_tags: [(text, spans,
    [(token, tag)])]."""
    out, chars, tags = [], [], []

    def flush():
        if not chars:
            return
        spans, i = {}, 0
        while i < len(tags):
            tag = tags[i]
            if tag.startswith("B-") or (tag.startswith("I-") and (i == 0 or tags[i - 1][2:] != tag[2:])):
                name, j = tag[2:], i + 1
                while j < len(tags) and tags[j] == "I-" + name:
                    j += 1
                spans.setdefault(name, "".join(chars[i:j]))
                i = j
            else:
                i += 1
        out.append(("".join(chars), spans) + ((list(zip(chars, tags)),) if with_tags else ()))
        chars.clear()
        tags.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                flush()
                continue
            token, tag = line.rsplit(" ", 1)
            chars.append(token)
            tags.append(tag)
    flush()
    return out


def agrees(name, span, level):
    """The same name, or the span a short form of it: a prefix of two characters or more (杭州,
    杭州市), or the same stem as the parser's gazetteer reads short names (石柱县 and
    石柱土家族自治县 are both 石柱)."""
    if not name:
        return False
    if name == span or (len(span) >= 2 and name.startswith(span)):
        return True
    stem = short_names(name, level)
    return bool(stem) and stem == short_names(span, level)


def is_right(got, span, level):
    """The tool's name for the level agrees with the span, or its former name there does."""
    return agrees(got[level], span, level) or agrees(got["former"].get(level), span, level)


def geoalign_parse(binary, model, texts, guess):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "addresses.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(texts) + "\n")
        cmd = [binary, "parse", "--model", model, path] + ([] if guess else ["--no-guess"])
        lines = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    if len(lines) != len(texts):
        sys.exit(f"compare_cpca: {len(texts)} addresses but {len(lines)} parses")
    return [json.loads(line).get("admin", {}) for line in lines]


def geoalign_levels(binary, model, texts, guess):
    out = []
    for admin in geoalign_parse(binary, model, texts, guess):
        levels = {level: admin.get(level) for level in LEVELS}
        if levels["prov"] in MUNICIPALITIES and not levels["city"]:
            levels["city"] = levels["prov"]
        levels["former"] = {level: h["name"] for level, h in admin.get("historical", {}).items()}
        levels["code"] = admin.get("adcode") or ""
        out.append(levels)
    return out


def cpca_levels(src, texts):
    if src:
        sys.path.insert(0, os.path.abspath(src))
    try:
        import cpca
    except ImportError as e:
        print(f"compare_cpca: cpca left out ({e}); give its source folder with --cpca-src", file=sys.stderr)
        return None
    frame = cpca.transform(texts)
    out = []
    for prov, city, district, code in zip(frame["省"], frame["市"], frame["区"], frame["adcode"]):
        prov, city, district = (v if isinstance(v, str) and v else None for v in (prov, city, district))
        if prov in MUNICIPALITIES and city in (None, "市辖区", "县"):
            city = prov
        out.append({"prov": prov, "city": city, "district": district, "former": {},
                    "code": code if isinstance(code, str) else ""})
    return out


def district_alone(data, binary, model):
    """Addresses that tag a district and a province or city, whose district geoalign
    --no-guess resolves for certain (named, by a current name) with them; their text
    without the prov and city spans, and that district's code."""
    full = geoalign_parse(binary, model, [d[0] for d in data], guess=False)
    texts, codes = [], []
    for (_, spans, tokens), admin in zip(data, full):
        if "district" not in spans or not ({"prov", "city"} & set(spans)):
            continue
        if admin.get("ambiguous") or not admin.get("district") or "district" in admin["inferred"]:
            continue
        if "historical" in admin:
            continue
        texts.append("".join(t for t, tag in tokens if tag[2:] not in ("prov", "city")))
        codes.append(admin["adcode"][:6])
    return texts, codes


def score_codes(codes, results):
    right = sum(1 for want, got in zip(codes, results) if got["district"] and got["code"][:6] == want)
    wrong = sum(1 for want, got in zip(codes, results) if got["district"] and got["code"][:6] != want)
    return {"addresses": len(codes), "right": right, "wrong": wrong}


def score(data, results):
    table = {}
    for level in LEVELS:
        named = right = wrong = 0
        for (_, spans), got in zip(data, results):
            if level not in spans:
                continue
            named += 1
            span = spans[level]
            if is_right(got, span, level):
                right += 1
            elif got[level]:
                wrong += 1
        table[level] = {"named": named, "right": right, "wrong": wrong,
                        "right_rate": right / named if named else 0.0, "wrong_rate": wrong / named if named else 0.0}
    only_district = [got for (_, spans), got in zip(data, results) if "district" in spans and "city" not in spans]
    table["city_completed"] = {"addresses": len(only_district), "completed": sum(1 for g in only_district if g["city"])}
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(ROOT), "shared", "data", "address_ner", "dev.txt"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default", "parser"))
    ap.add_argument("--cpca-src", default=None, help="cpca's source folder (holding cpca/)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--failures", choices=LEVELS, help="print the addresses each tool gets wrong or leaves empty at this level")
    args = ap.parse_args()

    tagged = read_conll(args.data, with_tags=True)
    data = [(text, spans) for text, spans, _ in tagged]
    texts = [t for t, _ in data]
    alone_texts, alone_codes = district_alone(tagged, args.geoalign, args.model)
    tools = {"geoalign": geoalign_levels(args.geoalign, args.model, texts, guess=True),
             "geoalign --no-guess": geoalign_levels(args.geoalign, args.model, texts, guess=False)}
    alone = {"geoalign": geoalign_levels(args.geoalign, args.model, alone_texts, guess=True),
             "geoalign --no-guess": geoalign_levels(args.geoalign, args.model, alone_texts, guess=False)}
    cpca = cpca_levels(args.cpca_src, texts)
    if cpca is not None:
        tools["cpca"] = cpca
        alone["cpca"] = cpca_levels(None, alone_texts)
    tables = {name: score(data, results) for name, results in tools.items()}
    for name, results in alone.items():
        tables[name]["district_alone"] = score_codes(alone_codes, results)

    if args.failures:
        for name, results in tools.items():
            print(f"## {name}: {args.failures} wrong or empty")
            for (text, spans), got in zip(data, results):
                span = spans.get(args.failures)
                if span and not is_right(got, span, args.failures):
                    print(f"{text}\t{span}\t{got[args.failures]}")
        return
    if args.json:
        print(json.dumps({"data": args.data, "addresses": len(data), "tools": tables}, ensure_ascii=False, indent=2))
        return
    print(f"{len(data)} tagged addresses of {args.data}\n")
    print("| level named in the address | " + " | ".join(f"{n} right / wrong" for n in tables) + " |")
    print("|---|" + "---|" * len(tables))
    first = next(iter(tables.values()))
    for level in LEVELS:
        cells = [f"{t[level]['right_rate']:.3f} / {t[level]['wrong_rate']:.3f}" for t in tables.values()]
        print(f"| {LEVEL_TITLES[level]} ({first[level]['named']:,}) | " + " | ".join(cells) + " |")
    cells = [str(t["city_completed"]["completed"]) for t in tables.values()]
    print(f"| city completed when only a district is named ({first['city_completed']['addresses']:,}) | "
          + " | ".join(cells) + " |")
    n = first["district_alone"]["addresses"]
    cells = [f"{t['district_alone']['right'] / n:.3f} / {t['district_alone']['wrong'] / n:.3f}" for t in tables.values()]
    print(f"| the district alone: prov and city removed ({n:,}), its code | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
