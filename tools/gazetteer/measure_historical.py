#!/usr/bin/env python3
"""How often does `geoalign parse` resolve a former district name to the right current one?

Takes the real addresses of the address_ner data (CoNLL, gold element tags), keeps those
whose district element the parser resolves, without ambiguity and by a current name, to a
district that has a former division in models/default/parser/historical.tsv, and writes
variants of them with that district element replaced by the former name (上城区 ->
江干区; a short name by the former short name: 上城 -> 江干, unless that is a current
name too: 柯桥 -> 绍兴, of 绍兴县, is the city 绍兴市). Addresses that already use
a former name with one successor get the opposite variant (江东区 -> 鄞州区). All
variants are parsed with `geoalign parse` and counted right when their district is the
expected current division, or, for a former division with several successors (江干区),
when the district is left open and the successors listed include the expected one.

    /usr/bin/python3 tools/gazetteer/measure_historical.py [--data ../shared/data/address_ner]
        [--geoalign build/release/geoalign] [--model models/default/parser] [--failures N]

Nothing is written into the repository; the variants live in a temporary folder.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SUFFIXES = {  # as src/geo/gazetteer.cpp's short_names (without its nationality stripping)
    "prov": ("特别行政区", "自治区", "省", "市"),
    "city": ("自治州", "地区", "市", "盟", "州"),
    "district": ("自治县", "自治旗", "新区", "区", "县", "市", "旗"),
    "town": ("街道办事处", "街道", "镇", "乡", "苏木"),
}


def current_names(path):
    """Every full and short name in divisions.tsv."""
    names = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            _, level, name, _ = line.rstrip("\n").split("\t")
            names.add(name)
            short = short_name(name, level)
            if short:
                names.add(short)
    return names


def short_name(name, level="district"):
    for suffix in SUFFIXES[level]:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            return stem if len(stem) >= 2 else None
    return None


def read_conll(path):
    """Addresses as lists of (text, tag) elements."""
    out, tokens = [], []
    with open(path, encoding="utf-8") as f:
        for line in list(f) + ["\n"]:
            line = line.rstrip("\n")
            if not line.strip():
                if tokens:
                    elements = []
                    for token, label in tokens:
                        tag = label[2:] if label != "O" else "O"
                        if label.startswith("B-") or not elements or elements[-1][1] != tag:
                            elements.append([token, tag])
                        else:
                            elements[-1][0] += token
                    out.append([tuple(e) for e in elements])
                tokens = []
                continue
            token, label = line.rsplit(" ", 1)
            tokens.append((token, label))
    return out


def load_historical(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            code, level, name, parent, until, successors, how = (line.rstrip("\n").split("\t") + [""])[:7]
            if how == "ceded_towns":
                continue  # a current division's earlier extent: its name is today's
            # After '|': partial successors, which a former name alone does not read as.
            rows.append({"code": code, "level": level, "name": name,
                         "successors": successors.split("|")[0].split(",")})
    return rows


def parse_all(geoalign, model, texts, workdir):
    path = os.path.join(workdir, "addresses.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(texts) + "\n")
    out = subprocess.run([geoalign, "parse", "--model", model, path], check=True, capture_output=True, text=True).stdout
    parses = [json.loads(line) for line in out.splitlines()]
    if len(parses) != len(texts):
        sys.exit(f"measure_historical: {len(texts)} addresses in, {len(parses)} parses out")
    return parses


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "address_ner"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default", "parser"))
    ap.add_argument("--failures", type=int, default=10, help="print this many wrong variants")
    args = ap.parse_args()

    historical = load_historical(os.path.join(args.model, "historical.tsv"))
    # A former short name that is also a current name (绍兴, of 绍兴县 and 绍兴市) names the
    # current division, by design: such swaps are not counted.
    current = current_names(os.path.join(args.model, "divisions.tsv"))
    former_of = collections.defaultdict(list)  # current district code -> former districts in it
    for row in historical:
        if row["level"] == "district":
            for s in row["successors"]:
                former_of[s].append(row)

    addresses, splits = [], []
    for split in ("train", "dev"):
        read = read_conll(os.path.join(args.data, split + ".txt"))
        addresses += read
        splits += [split] * len(read)
    texts = ["".join(text for text, _ in a) for a in addresses]
    with tempfile.TemporaryDirectory() as tmp:
        originals = parse_all(args.geoalign, args.model, texts, tmp)

        variants = []  # (text, expected code, former row, direction, split)
        for elements, parsed, split in zip(addresses, originals, splits):
            admin = parsed["admin"]
            if admin["ambiguous"] or not admin["district"]:
                continue
            districts = [i for i, (_, tag) in enumerate(elements) if tag == "district"]
            if len(districts) != 1:
                continue
            i = districts[0]
            text = elements[i][0]
            code = admin["adcode"][:6]
            used = admin.get("historical", {}).get("district")
            if used:
                # Already a former name: back to the current one (one successor only, and
                # the one the address is read in, not a partial successor: 茂港区羊角镇 is
                # 茂南区, and 电白区羊角镇 would name two places).
                if (used["now_codes"] != [code] or text not in (used["name"], short_name(used["name"]))):
                    continue
                now = used["now"][0]
                swapped = now if text == used["name"] else short_name(now)
                if not swapped:
                    continue
                variants.append(("".join(swapped if k == i else t for k, (t, _) in enumerate(elements)), code, None, "to_current", split))
                continue
            for former in former_of.get(code, []):
                if text == admin["district"]:
                    swapped = former["name"]
                elif text == short_name(admin["district"]):
                    swapped = short_name(former["name"])
                else:
                    continue  # the element is not the district's name as the gazetteer has it
                if not swapped or swapped == text or (swapped != former["name"] and swapped in current):
                    continue
                variants.append(("".join(swapped if k == i else t for k, (t, _) in enumerate(elements)), code, former, "to_former", split))

        parses = parse_all(args.geoalign, args.model, [v[0] for v in variants], tmp)

    counts = collections.Counter()
    by_split = collections.Counter()
    failures = []
    by_former = collections.Counter()
    for (text, code, former, direction, split), parsed in zip(variants, parses):
        admin = parsed["admin"]
        district = admin["district"]
        got = admin["adcode"][:6] if district else None
        several = former is not None and len(former["successors"]) > 1
        used = admin.get("historical", {}).get("district")
        right = got == code or (several and got is None and used is not None and code in used["now_codes"])
        kind = direction + ("_several" if several else "")
        counts[(kind, right)] += 1
        by_split[(split, right)] += 1
        if former:
            by_former[former["name"]] += 1
        if not right and len(failures) < args.failures:
            failures.append((text, code, got, admin.get("historical")))

    total = sum(counts.values())
    right = sum(n for (kind, ok), n in counts.items() if ok)
    print(f"{len(addresses)} addresses in {args.data} (train + dev); {total} variants from "
          f"{len(by_former)} former districts")
    for kind in sorted({k for k, _ in counts}):
        n_right, n = counts[(kind, True)], counts[(kind, True)] + counts[(kind, False)]
        print(f"  {kind:22s} {n_right:6d} / {n:6d} right ({100.0 * n_right / max(n, 1):.2f}%)")
    print(f"  {'all':22s} {right:6d} / {total:6d} right ({100.0 * right / max(total, 1):.2f}%)")
    for split in ("train", "dev"):  # the shipped tagger was trained on train.txt
        n_right, n = by_split[(split, True)], by_split[(split, True)] + by_split[(split, False)]
        print(f"  {'from ' + split + '.txt':22s} {n_right:6d} / {n:6d} right ({100.0 * n_right / max(n, 1):.2f}%)")
    print("most used former names: " + ", ".join(f"{name} {n}" for name, n in by_former.most_common(12)))
    for text, code, got, hist in failures:
        print(f"wrong: {text}  expected {code}, got {got}  historical={json.dumps(hist, ensure_ascii=False)}")


if __name__ == "__main__":
    main()
