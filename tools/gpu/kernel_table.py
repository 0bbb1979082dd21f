"""Sums Nsight Compute's per-kernel durations (ncu --csv --metrics gpu__time_duration.sum)
by kernel, largest first: where a batch's GPU time goes.

    kernel_table.py kernels_1000.csv [kernels_1.csv ...]
"""
import collections
import csv
import sys


def short_name(name):
    """cuBLASLt's kernels have long template names: keep what says which one it is."""
    for anonymous in ("(anonymous namespace)::", "<unnamed>::"):
        name = name.replace(anonymous, "")
    name = name.removeprefix("void ").split("(")[0]
    if "gemm" in name.lower() or "xmma" in name or name.startswith("sm90"):
        return "GEMM: " + name[:80]
    return name.split("::")[-1][:70]


def table(path):
    totals, counts = collections.defaultdict(float), collections.Counter()
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own log lines are not CSV
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        units = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
        if row["Metric Unit"] not in units:
            sys.exit(f"{path}: a duration in {row['Metric Unit']!r}, which this table does not know")
        scale = units[row["Metric Unit"]]
        kernel = short_name(row["Kernel Name"])
        totals[kernel] += value * scale
        counts[kernel] += 1
    grand = sum(totals.values())
    print(f"{path}: {sum(counts.values())} kernels, {grand / 1000:.3f} ms of GPU time")
    print(f"{'kernel':72} {'calls':>6} {'ms':>9} {'share':>6}")
    for kernel, us in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"{kernel:72} {counts[kernel]:6d} {us / 1000:9.3f} {us / grand:6.1%}")
    print()


if __name__ == "__main__":
    for path in sys.argv[1:]:
        table(path)
