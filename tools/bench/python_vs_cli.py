#!/usr/bin/env python3
"""Scoring throughput of the Python package against `geoalign score`, on the same pairs.

    /usr/bin/python3 tools/bench/python_vs_cli.py PAIRS_TSV [--n 2000] [--precision auto]

Takes the first N addr1<TAB>addr2 rows of PAIRS_TSV (a header and further columns are
ignored), scores them with `geoalign score` and with geoalign.Matcher.score, and reports
pairs per second for each with model loading left out of both: the CLI's own closing line
times its scoring after the load, and the Python call is timed alone on a loaded Matcher.
It also checks that both gave the same labels and scores. Needs the installed package
(pip install .) and the CLI (build/release/geoalign).

On a shared machine another process's load can change within seconds, so the two are
timed in alternating rounds (CLI then Python, Python then CLI, ...), each Python round on a
freshly loaded Matcher as each CLI run is a fresh process, and the medians are compared.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import geoalign

ROOT = Path(__file__).resolve().parents[2]


def read_pairs(path: Path, n: int) -> list[tuple[str, str]]:
    pairs = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            columns = line.rstrip("\r\n").split("\t")
            if number == 1 and columns[:2] == ["addr1", "addr2"]:
                continue
            if len(columns) < 2:
                sys.exit(f"{path}:{number}: expected addr1<TAB>addr2")
            pairs.append((columns[0], columns[1]))
            if len(pairs) == n:
                break
    return pairs


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def run_cli(cli: Path, model: Path, precision: str, pairs: list[tuple[str, str]]) -> tuple[float, list[str]]:
    """Seconds `geoalign score` reports for its scoring, and its output rows."""
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".tsv") as f:
        f.writelines(f"{a}\t{b}\n" for a, b in pairs)
        f.flush()
        done = subprocess.run(
            [str(cli), "score", "--model", str(model), "--precision", precision, f.name],
            capture_output=True, text=True, check=True,
        )
    # "geoalign score: N pairs scored, K bad rows skipped, S s": timed from after the load.
    found = re.search(r"(\d+) pairs scored, \d+ bad rows skipped, ([0-9.]+) s", done.stderr)
    if not found or int(found.group(1)) != len(pairs):
        sys.exit(f"unexpected output from geoalign score: {done.stderr}")
    return float(found.group(2)), done.stdout.splitlines()[1:]


def time_python(model: Path, precision: str, pairs: list[tuple[str, str]]) -> tuple[float, list, str]:
    """Seconds Matcher.score takes on a freshly loaded Matcher, its results and precision."""
    matcher = geoalign.Matcher(model, precision=precision)
    start = time.perf_counter()
    results = matcher.score(pairs)
    return time.perf_counter() - start, results, matcher.precision


def same_output(cli_rows: list[str], results: list) -> bool:
    return len(cli_rows) == len(results) and all(
        row.split("\t")[2:]
        == [r.label, *(f"{x:.6f}" for x in (r.score, r.p_not_match, r.p_partial_match, r.p_exact_match))]
        for row, r in zip(cli_rows, results)
    )


def seconds_list(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("--n", type=int, default=2000, help="pairs to score (the first N)")
    parser.add_argument("--rounds", type=int, default=3, help="timings of each, alternating")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "default")
    parser.add_argument("--cli", type=Path, default=ROOT / "build" / "release" / "geoalign")
    args = parser.parse_args()

    pairs = read_pairs(args.pairs, args.n)
    cli_times, py_times, same = [], [], True
    for round_ in range(args.rounds):
        for which in ("cli", "python") if round_ % 2 == 0 else ("python", "cli"):
            if which == "cli":
                seconds, cli_rows = run_cli(args.cli, args.model, args.precision, pairs)
                cli_times.append(seconds)
            else:
                seconds, results, precision = time_python(args.model, args.precision, pairs)
                py_times.append(seconds)
        same = same and same_output(cli_rows, results)

    cli_s, py_s = statistics.median(cli_times), statistics.median(py_times)
    cli_rate, py_rate = len(pairs) / cli_s, len(pairs) / py_s
    print(f"CPU: {cpu_name()}, {len(os.sched_getaffinity(0))} cores usable; precision {precision}")
    print(f"{len(pairs)} pairs from {args.pairs}, {args.rounds} rounds each, medians")
    print(f"geoalign score : {cli_s:7.2f} s  {cli_rate:8.1f} pairs/s (its own timing, after the model load; {seconds_list(cli_times)} s)")
    print(f"Matcher.score  : {py_s:7.2f} s  {py_rate:8.1f} pairs/s (the call alone, on a loaded Matcher; {seconds_list(py_times)} s)")
    print(f"Python / CLI   : {py_rate / cli_rate:.3f}; identical labels and scores: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
