#!/usr/bin/python3
"""geoalign.dask.dedup of N synthetic addresses with a task bound: time and memory by stage.

    tools/bench/sharded_dedup_scale.py 2000000 --cap 100000 [--workers 2] [--json OUT]

Writes N rows of tools/bench/grow_addresses.py to a temporary file, reads it with
dd.read_csv in blocks of at most --cap rows, deduplicates it on a LocalCluster of
--workers one-thread worker processes with max_task_addresses=--cap, and reports the wall
time and, per stage (task name), the tasks, their summed seconds, the largest peak
resident memory of a worker while one ran, and the most memory one task added over what
its worker held when it started (tools/bench/task_memory.py).
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import dask.dataframe as dd
from distributed import Client, LocalCluster

sys.path.insert(0, str(Path(__file__).resolve().parent))
import geoalign.dask as gdask  # noqa: E402
from task_memory import TaskMemory, collect  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "default"
GB = 1 << 30


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("--cap", type=int, default=100_000, help="max_task_addresses")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--merge", default="exact")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "addresses.tsv"
        start = time.perf_counter()
        with open(path, "w", encoding="utf-8") as out:
            subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "grow_addresses.py"), str(args.n), "--seed",
                            str(args.seed)], stdout=out, check=True)
        size = path.stat().st_size
        print(f"{args.n:,} rows written in {time.perf_counter() - start:.0f} s ({size / 1e6:.0f} MB)", flush=True)
        # Blocks of at most --cap rows (synthetic rows are 40-120 bytes).
        blocksize = max(1 << 20, int(size / args.n * args.cap * 0.6))
        frame = dd.read_csv(str(path), sep="\t", header=None, names=["id", "address"], dtype=str, quoting=3,
                            blocksize=blocksize)
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            client.register_worker_plugin(TaskMemory())
            start = time.perf_counter()
            result = gdask.dedup(frame, id_column="id", model=MODEL, merge=args.merge, max_task_addresses=args.cap)
            clusters = result["cluster_id"].nunique().compute()
            seconds = time.perf_counter() - start
            records = collect(client)
    stages = defaultdict(lambda: {"tasks": 0, "seconds": 0.0, "peak_rss": 0, "task_added": 0})
    for r in records:
        s = stages[r["stage"]]
        s["tasks"] += 1
        s["seconds"] += r["seconds"]
        s["peak_rss"] = max(s["peak_rss"], r["peak_rss"])
        s["task_added"] = max(s["task_added"], r["peak_rss"] - r["start_rss"])
    print(f"dedup of {args.n:,} rows, max_task_addresses={args.cap:,}, {args.workers} workers: {seconds:.0f} s, "
          f"{clusters:,} clusters")
    print(f"{'stage':<22}{'tasks':>7}{'task s':>9}{'worker peak GB':>16}{'task added GB':>15}")
    for name, s in sorted(stages.items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"{name:<22}{s['tasks']:>7}{s['seconds']:>9.1f}{s['peak_rss'] / GB:>16.2f}{s['task_added'] / GB:>15.2f}")
    top = max(records, key=lambda r: r["peak_rss"] - r["start_rss"])
    print(f"most one task added: {(top['peak_rss'] - top['start_rss']) / GB:.2f} GB ({top['stage']}); "
          f"largest worker peak: {max(r['peak_rss'] for r in records) / GB:.2f} GB")
    if args.json:
        args.json.write_text(json.dumps({"n": args.n, "cap": args.cap, "workers": args.workers, "seconds": seconds,
                                         "clusters": int(clusters), "stages": stages}, indent=1))


if __name__ == "__main__":
    main()
