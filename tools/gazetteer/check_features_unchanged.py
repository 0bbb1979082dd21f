#!/usr/bin/env python3
"""Are the match head's pair features unchanged for addresses without former names?

Runs `geoalign features` with two builds (one without historical.tsv support, one with)
on pairs files, and compares the rows byte for byte, apart from pairs where an address
uses a former division's name: one whose text contains a former full name the tagger
sees (in historical.tsv and not a current name), or whose parse with the new build
reports `historical`. Prints the counts and any changed row outside those pairs.

    /usr/bin/python3 tools/gazetteer/check_features_unchanged.py --before OLD/geoalign \\
        [--after build/release/geoalign] [--model models/default] \\
        ../shared/data/ccks2021_address_relevance/pairs.tsv ../shared/data/shenzhen_address_pairs/pairs.tsv

Exit status 1 when a row without former names changed; with --all, when any row changed
(for a change meant to leave the features alone everywhere, as the parser's guess: its
--before is the build before the change). Nothing is written into the repository.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from measure_historical import current_names  # noqa: E402


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="+", help="addr1<TAB>addr2[<TAB>label] files")
    ap.add_argument("--before", required=True, help="a geoalign binary built without historical.tsv support")
    ap.add_argument("--after", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--all", action="store_true", help="fail when any row changed, with former names or not")
    args = ap.parse_args()

    parser_dir = os.path.join(args.model, "parser")
    current = current_names(os.path.join(parser_dir, "divisions.tsv"))
    with open(os.path.join(parser_dir, "historical.tsv"), encoding="utf-8") as f:
        former = {line.split("\t")[2] for line in f if not line.startswith("#")}
    visible = sorted((n for n in former if n not in current), key=len, reverse=True)
    pattern = re.compile("|".join(map(re.escape, visible)))

    with tempfile.TemporaryDirectory() as tmp:
        pairs_path = os.path.join(tmp, "pairs.tsv")
        with open(pairs_path, "w", encoding="utf-8") as out:
            for path in args.pairs:
                with open(path, encoding="utf-8") as f:
                    out.write(f.read())
        with open(pairs_path, encoding="utf-8") as f:
            pairs = [line.rstrip("\n").split("\t") for line in f]
        before = run([args.before, "features", "--model", args.model, pairs_path]).split("\n")
        after = run([args.after, "features", "--model", args.model, pairs_path]).split("\n")
        addresses = sorted({a for p in pairs for a in p[:2]})
        addresses_path = os.path.join(tmp, "addresses.txt")
        with open(addresses_path, "w", encoding="utf-8") as f:
            f.write("\n".join(addresses) + "\n")
        parses = run([args.after, "parse", "--model", parser_dir, addresses_path]).splitlines()

    uses_former = set()
    for address, line in zip(addresses, parses):
        if pattern.search(address) or "historical" in json.loads(line).get("admin", {}):
            uses_former.add(address)
    if before[0] != after[0]:
        sys.exit("check_features_unchanged: the feature names differ")
    changed_with = changed_without = with_former = 0
    for i, pair in enumerate(pairs):
        has = pair[0] in uses_former or pair[1] in uses_former
        with_former += has
        if before[i + 1] != after[i + 1]:
            if has:
                changed_with += 1
                if args.all:
                    print("changed (with a former name): " + "\t".join(pair[:2]))
            else:
                changed_without += 1
                print("changed: " + "\t".join(pair[:2]))
    print(f"{len(pairs)} pairs; {with_former} with an address using a former name ({changed_with} rows changed); "
          f"{len(pairs) - with_former} without ({changed_without} rows changed)")
    sys.exit(1 if changed_without or (args.all and changed_with) else 0)


if __name__ == "__main__":
    main()
