#!/usr/bin/env python3
"""Compares two `geoalign score`-format TSVs row by row (e.g. geoalign vs the PyTorch
reference): the largest probability difference and label agreement.

    python3 tools/reference/compare_scores.py a.tsv b.tsv [--tolerance 1e-3]

Exits 1 if a row is missing, the pairs differ, or a probability differs by more than
the tolerance.
"""
import argparse
import sys


def rows(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return [l.split("\t") for l in lines[1:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tolerance", type=float, default=1e-3)
    args = ap.parse_args()
    a, b = rows(args.a), rows(args.b)
    if len(a) != len(b):
        sys.exit(f"row counts differ: {len(a)} vs {len(b)}")
    worst, agree = 0.0, 0
    for i, (x, y) in enumerate(zip(a, b)):
        if x[:2] != y[:2]:
            sys.exit(f"row {i + 1}: different pairs")
        worst = max(worst, max(abs(float(p) - float(q)) for p, q in zip(x[3:7], y[3:7])))
        agree += x[2] == y[2]
    print(f"{len(a)} rows, max |prob diff| {worst:.2e}, labels agree {agree}/{len(a)}")
    sys.exit(0 if worst <= args.tolerance else 1)


if __name__ == "__main__":
    main()
