#!/usr/bin/env python3
"""Tunes the LCS baseline's two thresholds for macro-F1 on the CCKS train split (the
defaults of `geoalign eval --lcs-thresholds`).

    python3 tools/train/tune_lcs_baseline.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402


def lcs_ratio(a, b):
    if not a or not b:
        return 0.0
    row = [0] * (len(b) + 1)
    for ca in a:
        nxt = [0] * (len(b) + 1)
        for j, cb in enumerate(b):
            nxt[j + 1] = row[j] + 1 if ca == cb else max(row[j + 1], nxt[j])
        row = nxt
    return row[-1] / max(len(a), len(b))


def main():
    train = data.load_pairs(data.CCKS, "train")
    ratios = [lcs_ratio(a, b) for a, b, _ in train]
    gold = [y for _, _, y in train]
    best = (0, 0, 0)
    grid = [x / 100 for x in range(5, 100, 2)]
    for lo in grid:
        for hi in grid:
            if hi < lo:
                continue
            pred = [2 if r >= hi else 1 if r >= lo else 0 for r in ratios]
            f = data.macro_f1(gold, pred)[0]
            if f > best[0]:
                best = (f, lo, hi)
    print(f"train macro-F1 {best[0]:.4f} at partial >= {best[1]}, exact >= {best[2]}")
    dev = data.load_pairs(data.CCKS, "dev")
    pred = [2 if r >= best[2] else 1 if r >= best[1] else 0 for r in (lcs_ratio(a, b) for a, b, _ in dev)]
    print(f"dev macro-F1 {data.macro_f1([y for _, _, y in dev], pred)[0]:.4f}")


if __name__ == "__main__":
    main()
