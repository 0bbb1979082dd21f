#!/usr/bin/env python3
"""Compares two `geoalign score`-format TSVs row by row (e.g. geoalign vs the PyTorch
reference, or a GPU run vs the CPU's fp32): the largest probability difference, the
relative L2 difference of all probabilities (||a - b|| / ||b||, b the reference), and
label agreement.

    python3 tools/reference/compare_scores.py a.tsv b.tsv [--tolerance 1e-3] [--min-agreement 0.995]

Exits 1 if a row is missing, the pairs differ, a probability differs by more than the
tolerance, or fewer labels than --min-agreement (a share) agree.
"""
import argparse
import math
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
    ap.add_argument("--min-agreement", type=float, default=0.0, help="share of rows whose labels must agree")
    args = ap.parse_args()
    a, b = rows(args.a), rows(args.b)
    if len(a) != len(b):
        sys.exit(f"row counts differ: {len(a)} vs {len(b)}")
    if not a:
        sys.exit("no rows to compare")
    worst, agree, diff2, ref2 = 0.0, 0, 0.0, 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if x[:2] != y[:2]:
            sys.exit(f"row {i + 1}: different pairs")
        p, q = [float(v) for v in x[4:7]], [float(v) for v in y[4:7]]  # the three probabilities
        if any(math.isnan(v) for v in p + q):
            sys.exit(f"row {i + 1}: NaN")
        worst = max(worst, max(abs(u - v) for u, v in zip(p, q)))
        diff2 += sum((u - v) ** 2 for u, v in zip(p, q))
        ref2 += sum(v * v for v in q)
        agree += x[2] == y[2]
    print(f"{len(a)} rows, max |prob diff| {worst:.2e}, relative L2 {math.sqrt(diff2 / ref2):.2e}, "
          f"labels agree {agree}/{len(a)} ({agree / len(a):.4f})")
    sys.exit(0 if worst <= args.tolerance and agree >= args.min_agreement * len(a) else 1)


if __name__ == "__main__":
    main()
