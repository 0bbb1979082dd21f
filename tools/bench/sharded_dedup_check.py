#!/usr/bin/python3
"""geoalign.dask.dedup with a small max_task_addresses against the whole file in one process.

    tools/bench/sharded_dedup_check.py --synthetic 20000 --cap 5000
    tools/bench/sharded_dedup_check.py --pairs ../shared/data/ccks2021_address_relevance/pairs.tsv --cap 5000
    tools/bench/sharded_dedup_check.py --pairs ../shared/data/shenzhen_address_pairs/pairs.tsv --merge partial
    tools/bench/sharded_dedup_check.py --synthetic 20000 --cap 5000 --vector-partitions

Reports, for the sharded run (blocking in coarse partitions, clustering by components):
candidate recall against the candidates of blocking the whole file at once, pairwise F1
of its clusters against the whole file's (`geoalign.dask.dedup` without a cap, which
gives `geoalign dedup`'s clusters), time, and with --pairs pairwise precision, recall and
F1 against the file's labels (its addresses pooled, as tools/bench/dask_bench.py does).
Runs on a LocalCluster of --workers one-thread worker processes.
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import dask
import dask.dataframe as dd
from distributed import Client, LocalCluster

import geoalign.dask as gdask
import geoalign._sharded_dedup as sharded_dedup
from geoalign import _geoalign

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "default"


def pool_of(args) -> tuple[pd.DataFrame, pd.DataFrame]:
    if args.synthetic:
        out = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "grow_addresses.py"), str(args.synthetic),
                              "--seed", str(args.seed)], capture_output=True, text=True, check=True).stdout
        rows = [line.split("\t") for line in out.splitlines()]
        return pd.DataFrame(rows, columns=["id", "address"]), pd.DataFrame()
    pairs = pd.read_csv(args.pairs, sep="\t", header=None, usecols=[0, 1, 2], names=["a", "b", "label"], dtype=str,
                        quoting=3)
    texts = list(dict.fromkeys(list(pairs["a"]) + list(pairs["b"])))
    return pd.DataFrame({"id": [f"r{i}" for i in range(len(texts))], "address": texts}), pairs


def pairs_in_clusters(cluster: np.ndarray) -> float:
    _, n = np.unique(cluster, return_counts=True)
    return float((n * (n - 1) // 2).sum())


def pairwise_agreement(truth: np.ndarray, got: np.ndarray) -> tuple[float, float, float]:
    """Precision, recall and F1 of got's same-cluster row pairs against truth's."""
    both = pd.DataFrame({"t": truth, "g": got}).groupby(["t", "g"]).size().to_numpy()
    tp = float((both * (both - 1) // 2).sum())
    p = tp / max(pairs_in_clusters(got), 1)
    r = tp / max(pairs_in_clusters(truth), 1)
    return p, r, 2 * p * r / max(p + r, 1e-12)


def labelled_f1(pairs: pd.DataFrame, cluster_of: dict) -> str:
    positive = "2" if (pairs["label"] == "2").any() else "1"
    same = np.asarray([cluster_of[a] == cluster_of[b] for a, b in zip(pairs["a"], pairs["b"])])
    tp = int((same & (pairs["label"] == positive)).sum())
    fp = int((same & (pairs["label"] == "0")).sum())
    fn = int((~same & (pairs["label"] == positive)).sum())
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return f"precision {p:.4f} recall {r:.4f} F1 {2 * p * r / max(p + r, 1e-9):.4f}"


def whole_file_candidates(texts: list[str]) -> set:
    """Blocking over every distinct normalized address at once, as `geoalign dedup` does."""
    model = _geoalign.DedupModel(str(MODEL))
    normalized, _ = model.normalize(texts)
    distinct, _ = _geoalign.dedup_number([t for t in normalized if t])
    vectors, regions = model.embed_and_locate(distinct)
    pairs = _geoalign.dedup_block(distinct, regions, vectors, 20)
    return {(distinct[a], distinct[b]) for a, b in pairs}


def sharded_candidates(tasks) -> set:
    located, scored = dask.compute(tasks.located, tasks.scored)
    text = {}
    for t in located:
        if t:
            text.update(zip(t["address"].tolist(), t["text"].tolist()))
    return {(text[a], text[b]) for s in scored if s for a, b in zip(s["a"].tolist(), s["b"].tolist())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--synthetic", type=int, help="this many rows of tools/bench/grow_addresses.py")
    source.add_argument("--pairs", type=Path, help="labelled pairs whose addresses are pooled")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cap", type=int, default=5000, help="max_task_addresses of the sharded run")
    ap.add_argument("--merge", default="exact")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--vector-partitions", action="store_true",
                    help="search vectors in coarse partitions, as above 50,000 addresses, at any size")
    args = ap.parse_args()
    if args.vector_partitions:
        sharded_dedup.EXACT_VECTORS_UP_TO = 0  # read where the task graph is built, in this process

    pool, pairs = pool_of(args)
    print(f"{len(pool)} rows; cap {args.cap}; merge {args.merge}")
    start = time.perf_counter()
    whole = whole_file_candidates(list(pool["address"]))
    print(f"whole-file blocking: {len(whole):,} candidate pairs ({time.perf_counter() - start:.1f} s)")
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster):
        frame = dd.from_pandas(pool, npartitions=max(2 * args.workers, -(-len(pool) // args.cap)))
        start = time.perf_counter()
        one = gdask.dedup(frame, id_column="id", model=MODEL, merge=args.merge).compute()
        print(f"without a cap: {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        _, _, tasks = gdask._dedup_tasks(frame, "address", "id", str(MODEL), None, args.merge, 20, "auto", "rerank",
                                         "fail", None, None, None, None, args.cap)
        found = sharded_candidates(tasks)
        sharded = gdask.dedup(frame, id_column="id", model=MODEL, merge=args.merge, max_task_addresses=args.cap).compute()
        print(f"max_task_addresses={args.cap}: {time.perf_counter() - start:.1f} s (blocking twice: once for the "
              "candidates above, once in dedup)")
    recall = len(whole & found) / max(len(whole), 1)
    print(f"candidates: {len(found):,}; recall of the whole file's {recall:.4f}")
    p, r, f1 = pairwise_agreement(one["cluster_id"].to_numpy(), sharded["cluster_id"].to_numpy())
    print(f"clusters against the whole file's: pairwise precision {p:.4f} recall {r:.4f} F1 {f1:.4f}")
    if len(pairs):
        print("labels, whole file:", labelled_f1(pairs, dict(zip(one["address"], one["cluster_id"]))))
        print("labels, sharded:   ", labelled_f1(pairs, dict(zip(sharded["address"], sharded["cluster_id"]))))


if __name__ == "__main__":
    main()
