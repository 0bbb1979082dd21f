#!/usr/bin/python3
"""Dedup against direct pairwise decisions, on a labelled pairs file.

    tools/bench/dedup_quality.py PAIRS.tsv [--model DIR] [--merge exact,partial] [--split test]

1. Direct: `geoalign score` on the labelled pairs; pairwise F1 where a pair is predicted
   one place when its label is exact_match (rule exact) or exact_match or partial_match
   (rule partial).
2. Dedup: the pool of every distinct address of PAIRS through `geoalign dedup --eval PAIRS`
   with each merge rule: a labelled match is a true positive when both addresses land in one
   cluster (pairwise precision, recall, F1, and candidate recall).
Labels: 2 = match, 0 = non-match, 1 ignored when the file has a 2 (CCKS); else 1 = match.
--split keeps only the pairs of one split of tools/train/data.py: the figure to expect on
pairs never seen, for dedup (the rerank head is fitted on the train split). Direct
scoring uses the match head, which is fitted on every pair: for an unseen direct figure,
give as --model a copy of the folder whose match head is retrained with
`tools/train/train_match_head.py --fit-on train`.
"""
import argparse, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "train"))


def f1(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs")
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--merge", default="exact,partial")
    ap.add_argument("--extra", default="", help="more dedup options, space-separated")
    ap.add_argument("--split", choices=["train", "dev", "test"])
    args = ap.parse_args()
    rows = [l.rstrip("\n").split("\t")[:3] for l in open(args.pairs, encoding="utf-8") if l.strip()]
    if args.split:
        import data
        rows = [r for r in rows if data.split_of(r[0]) == args.split]
    three = any(r[2] == "2" for r in rows)
    gold = [True if r[2] == ("2" if three else "1") else False if r[2] == "0" else None for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        pairs, labelled = os.path.join(tmp, "pairs.tsv"), os.path.join(tmp, "labelled.tsv")
        with open(pairs, "w", encoding="utf-8") as f:
            f.writelines(f"{a}\t{b}\n" for a, b, _ in rows)
        with open(labelled, "w", encoding="utf-8") as f:
            f.writelines(f"{a}\t{b}\t{y}\n" for a, b, y in rows)
        scored = subprocess.run([args.geoalign, "score", "--model", args.model, pairs], capture_output=True, text=True,
                                check=True).stdout.splitlines()[1:]
        labels = [line.split("\t")[2] for line in scored]
        for rule, positive in (("exact", {"exact_match"}), ("partial", {"exact_match", "partial_match"})):
            tp = sum(g is True and l in positive for g, l in zip(gold, labels))
            fp = sum(g is False and l in positive for g, l in zip(gold, labels))
            fn = sum(g is True and l not in positive for g, l in zip(gold, labels))
            p, r, f = f1(tp, fp, fn)
            print(f"direct score, rule {rule}: precision {p:.4f} recall {r:.4f} F1 {f:.4f}")
        pool = os.path.join(tmp, "pool.txt")
        seen = dict.fromkeys(t for r in rows for t in r[:2])
        with open(pool, "w", encoding="utf-8") as f:
            f.writelines(f"{t}\n" for t in seen)
        for rule in args.merge.split(","):
            err = subprocess.run([args.geoalign, "dedup", "--model", args.model, "--input", pool, "--out",
                                  os.path.join(tmp, "clusters.tsv"), "--merge", rule, "--eval", labelled]
                                 + args.extra.split(), capture_output=True, text=True, check=True).stderr
            summary = [l for l in err.replace("\r", "\n").splitlines() if l.startswith("geoalign dedup:")]
            print(f"dedup, rule {rule}: " + " | ".join(re.sub(r"^geoalign dedup: (against \S+: )?", "", l) for l in summary))


if __name__ == "__main__":
    main()
