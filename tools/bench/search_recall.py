#!/usr/bin/python3
"""Search recall on labelled pairs: every distinct address of PAIRS is indexed; each address
with an exact-match partner is a query; Recall@k is the share of (query, partner) links
whose partner is among the query's top k results (the query's own record not counted).

    tools/bench/search_recall.py PAIRS.tsv [--index DIR] [--k 10] [--rerank 50] [--split test]

PAIRS: addr1<TAB>addr2<TAB>label with 2 = exact_match (CCKS) or 1 = match when no label is 2
(Shenzhen). --split keeps only queries from one split of tools/train/data.py, to report an
unseen figure beside the full one: search reranks with the rerank head, which is fitted on
the train split (`tools/train/train_match_head.py --without-encoder`).
Without --index the index is built in a temporary folder.
"""
import argparse, collections, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "train"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs")
    ap.add_argument("--index")
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--rerank", type=int, default=50)
    ap.add_argument("--split", choices=["train", "dev", "test"])
    ap.add_argument("--extra", default="", help="more search options, space-separated")
    args = ap.parse_args()

    rows = [l.rstrip("\n").split("\t") for l in open(args.pairs, encoding="utf-8") if l.strip()]
    match_label = "2" if any(r[2] == "2" for r in rows) else "1"
    ids, partners = {}, collections.defaultdict(set)
    for a, b, label in (r[:3] for r in rows):
        for t in (a, b):
            ids.setdefault(t, f"r{len(ids)}")
        if label == match_label and a != b:
            partners[a].add(b)
            partners[b].add(a)
    queries = sorted(partners)
    if args.split:
        import data
        # The split follows the pair's first address; a query is in it when any of its pairs is.
        keep = {t for r in rows if data.split_of(r[0]) == args.split for t in r[:2]}
        queries = [q for q in queries if q in keep]
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index
        if not index:
            pool = os.path.join(tmp, "pool.tsv")
            with open(pool, "w", encoding="utf-8") as f:
                f.writelines(f"{i}\t{t}\n" for t, i in ids.items())
            index = os.path.join(tmp, "index")
            start = time.time()
            subprocess.run([args.geoalign, "index", "build", "--model", args.model, "--input", pool, "--out", index], check=True)
            print(f"index build: {len(ids)} addresses, {time.time() - start:.1f} s", file=sys.stderr)
        start = time.time()
        out = subprocess.run([args.geoalign, "search", "--index", index, "--k", str(args.k + 1), "--rerank", str(args.rerank)]
                             + args.extra.split(), input="".join(q + "\n" for q in queries), capture_output=True,
                             text=True, check=True).stdout
        seconds = time.time() - start
    found = total = 0
    for q, line in zip(queries, out.splitlines()):
        result = json.loads(line)
        assert result["query"] == q
        top = [h["text"] for h in result["results"] if h["text"] != q][: args.k]
        for p in partners[q]:
            total += 1
            found += p in top
    print(f"{len(queries)} queries, {total} links: Recall@{args.k} {found / total:.4f} "
          f"(rerank {args.rerank}; search {seconds:.1f} s)")


if __name__ == "__main__":
    main()
