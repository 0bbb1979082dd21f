#!/usr/bin/python3
"""Top-1 accuracy of `geoalign link` on labelled pairs: the left table is every first-column
address with a labelled match, the right table every distinct second-column address of the
file; a left row is right when its best match is one of its labelled partners.

    tools/bench/link_accuracy.py PAIRS.tsv [--ordered] [--head rerank|match] [--extra "..."]

PAIRS: addr1<TAB>addr2<TAB>label with 2 = exact_match (CCKS: only exact partners count) or
1 = match when no label is 2 (Shenzhen). A best match that is not a labelled partner counts
as wrong even where the file never labelled that pair; a left row without a match counts as
wrong too, and the share of those is reported beside.
"""
import argparse, collections, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs")
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--head", default="rerank")
    ap.add_argument("--ordered", action="store_true", help="read (left, right) as given")
    ap.add_argument("--extra", default="", help="more link options, space-separated")
    args = ap.parse_args()

    rows = [l.rstrip("\n").split("\t") for l in open(args.pairs, encoding="utf-8") if l.strip()]
    match_label = "2" if any(r[2] == "2" for r in rows) else "1"
    partners = collections.defaultdict(set)
    right = {}
    for a, b, label in (r[:3] for r in rows):
        right.setdefault(b, f"r{len(right)}")
        if label == match_label:
            partners[a].add(b)
    left = sorted(partners)
    with tempfile.TemporaryDirectory() as tmp:
        left_file, right_file = os.path.join(tmp, "left.tsv"), os.path.join(tmp, "right.tsv")
        with open(left_file, "w", encoding="utf-8") as f:
            f.writelines(f"l{i}\t{t}\n" for i, t in enumerate(left))
        with open(right_file, "w", encoding="utf-8") as f:
            f.writelines(f"{i}\t{t}\n" for t, i in right.items())
        start = time.time()
        out = subprocess.run([args.geoalign, "link", "--model", args.model, "--head", args.head, "--left", left_file,
                              "--right", right_file] + (["--ordered"] if args.ordered else []) + args.extra.split(),
                             capture_output=True, text=True, check=True).stdout
        seconds = time.time() - start
    lines = out.splitlines()[1:]
    assert len(lines) == len(left), (len(lines), len(left))
    right_top = unmatched = 0
    for q, line in zip(left, lines):
        f = line.split("\t")
        assert f[1] == q
        if not f[2]:
            unmatched += 1
        right_top += f[3] in partners[q]
    print(f"{len(left)} left rows against {len(right)} right rows ({args.head} head"
          f"{', ordered' if args.ordered else ''}): top-1 accuracy {right_top / len(left):.4f}, "
          f"no match {unmatched / len(left):.4f}; link {seconds:.1f} s")


if __name__ == "__main__":
    main()
