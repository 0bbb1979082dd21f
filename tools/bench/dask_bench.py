#!/usr/bin/python3
"""geoalign.dask against the CLI on this machine: throughput with 1 and 2 workers, and
that both give the same answers.

    /usr/bin/python3 tools/bench/dask_bench.py score PAIRS.tsv [--n 4000]
    /usr/bin/python3 tools/bench/dask_bench.py dedup LABELLED_PAIRS.tsv [--merge partial]

score: the first N addr1<TAB>addr2 rows. dedup: the pool of every distinct address of a
labelled pairs file (addr1<TAB>addr2<TAB>label), as tools/bench/dedup_quality.py builds
it; it also reports pairwise F1 of the Dask clusters against the labels (2 = match and 1
ignored when the file has a 2, else 1 = match; 0 = non-match).

Each setup runs on a LocalCluster of worker processes: 1 worker, then 2, each with one
Dask thread (a one-thread worker's task uses all the cores it is given). A small warm-up
job loads the model on every worker first, so the figures are steady-state rows/s, as
the CLI's own timing leaves its model load out. Needs the installed package (pip install .) and build/release/geoalign.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pandas as pd
import dask.dataframe as dd
from distributed import Client, LocalCluster

import geoalign.dask as gdask

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "release" / "geoalign"
MODEL = ROOT / "models" / "default"
SETUPS = [(1, 1), (2, 1)]  # (workers, threads per worker): a one-thread worker runs a task on all its cores


def cli_seconds(stderr: str, command: str) -> float:
    found = re.findall(rf"geoalign {command}: .*?([0-9.]+) s\b", stderr)
    if not found:
        raise RuntimeError(f"no timing in geoalign {command}'s output: {stderr[-400:]}")
    return float(found[-1])


def bench_score(args, tmp: Path) -> None:
    frame = pd.read_csv(args.file, sep="\t", header=None, usecols=[0, 1], names=["addr1", "addr2"], dtype=str,
                        quoting=3).head(args.n)
    path = tmp / "pairs.tsv"
    frame.to_csv(path, sep="\t", header=False, index=False, quoting=3)
    done = subprocess.run([str(CLI), "score", "--model", str(MODEL), str(path)], capture_output=True, text=True, check=True)
    cli = pd.read_csv(pd.io.common.StringIO(done.stdout), sep="\t", quoting=3, dtype={"label": str})
    seconds = cli_seconds(done.stderr, "score")
    print(f"CLI score: {len(frame)} pairs in {seconds:.2f} s, {len(frame) / seconds:,.0f} pairs/s")
    for workers, threads in SETUPS:
        with LocalCluster(n_workers=workers, threads_per_worker=threads, dashboard_address=None) as cluster, Client(cluster):
            ddf = dd.from_pandas(frame, npartitions=workers * threads * 4)
            gdask.score(dd.from_pandas(frame.head(8), npartitions=workers * threads), model=MODEL).compute()
            start = time.perf_counter()
            got = gdask.score(ddf, model=MODEL).compute()
            seconds = time.perf_counter() - start
        same = (got["label"].to_numpy() == cli["label"].to_numpy()).all()
        print(f"dask score, {workers} worker(s) x {threads} thread(s): {len(frame) / seconds:,.0f} pairs/s "
              f"({seconds:.2f} s); labels equal to the CLI's: {same}")


def pairwise_f1(pairs: pd.DataFrame, cluster_of: dict[str, str]) -> str:
    three = (pairs["label"] == "2").any()
    positive, negative = ("2" if three else "1"), "0"
    tp = fp = fn = 0
    for a, b, label in pairs.itertuples(index=False):
        same = cluster_of[a] == cluster_of[b]
        if label == positive:
            tp += same
            fn += not same
        elif label == negative:
            fp += same
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return f"precision {p:.4f} recall {r:.4f} F1 {2 * p * r / max(p + r, 1e-9):.4f} (TP {tp} FP {fp} FN {fn})"


def bench_dedup(args, tmp: Path) -> None:
    pairs = pd.read_csv(args.file, sep="\t", header=None, usecols=[0, 1, 2], names=["a", "b", "label"], dtype=str,
                        quoting=3)
    texts = list(dict.fromkeys(list(pairs["a"]) + list(pairs["b"])))
    pool = pd.DataFrame({"id": [f"r{i}" for i in range(len(texts))], "address": texts})
    path = tmp / "pool.tsv"
    pool.to_csv(path, sep="\t", header=False, index=False, quoting=3)
    done = subprocess.run([str(CLI), "dedup", "--model", str(MODEL), "--input", str(path), "--merge", args.merge],
                          capture_output=True, text=True, check=True)
    cli = pd.read_csv(pd.io.common.StringIO(done.stdout), sep="\t", quoting=3, dtype=str)
    seconds = cli_seconds(done.stderr.replace("\r", "\n"), "dedup")
    print(f"CLI dedup: {len(pool)} addresses in {seconds:.1f} s, {len(pool) / seconds:,.0f} rows/s")
    for workers, threads in SETUPS:
        with LocalCluster(n_workers=workers, threads_per_worker=threads, dashboard_address=None) as cluster, Client(cluster):
            gdask.dedup(dd.from_pandas(pool.head(50), npartitions=workers * threads), id_column="id", model=MODEL,
                        merge=args.merge).compute()
            start = time.perf_counter()
            got = gdask.dedup(dd.from_pandas(pool, npartitions=workers * threads * 4), id_column="id", model=MODEL,
                              merge=args.merge).compute()
            seconds = time.perf_counter() - start
        same = (got["cluster_id"].to_numpy() == cli["cluster_id"].to_numpy()).all()
        cluster_of = dict(zip(got["address"], got["cluster_id"]))
        print(f"dask dedup, {workers} worker(s) x {threads} thread(s): {len(pool) / seconds:,.0f} rows/s "
              f"({seconds:.1f} s); clusters equal to the CLI's: {same}; {pairwise_f1(pairs, cluster_of)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("job", choices=["score", "dedup"])
    ap.add_argument("file", type=Path)
    ap.add_argument("--n", type=int, default=4000, help="score: pairs to score")
    ap.add_argument("--merge", default="exact", help="dedup: exact or partial")
    args = ap.parse_args()
    print(f"CPU: {os.popen('lscpu').read().split('Model name:')[1].splitlines()[0].strip()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        (bench_score if args.job == "score" else bench_dedup)(args, Path(tmp))


if __name__ == "__main__":
    main()
