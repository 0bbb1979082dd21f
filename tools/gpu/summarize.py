#!/usr/bin/env python3
"""The one table of tools/gpu/check.sh: per model folder and batch size, pairs/s of
geoalign (`bench --device cuda --json`) beside PyTorch and ONNX Runtime
(tools/gpu/torch_baselines.py --json), then each issue-19 figure: geoalign bf16 at its
best batch against PyTorch bf16 eager at its best, the share of bench's measured bf16
GEMM peak, and batch-1 latency.

    python3 tools/gpu/summarize.py --out DIR     (DIR holds bench_NAME.json, torch_NAME.jsonl, parity.txt)
"""
import argparse
import json
import os


def load_bench(path):
    """{(precision, batch): result}, and the bench JSON itself."""
    with open(path, encoding="utf-8") as f:
        bench = json.load(f)
    return {(r["precision"], r["batch_size"]): r for r in bench["results"]}, bench


def load_torch(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            rows[(r["runtime"], r["batch"])] = r
    return rows


def table(name, out):
    bench_path, torch_path = os.path.join(out, f"bench_{name}.json"), os.path.join(out, f"torch_{name}.jsonl")
    if not os.path.exists(bench_path):
        return [f"{name}: no bench results"]
    ours, bench = load_bench(bench_path)
    theirs = load_torch(torch_path) if os.path.exists(torch_path) else {}
    runtimes = sorted({runtime for runtime, _ in theirs})
    batches = sorted({b for _, b in ours} | {b for _, b in theirs})
    precisions = sorted({p for p, _ in ours})
    lines = [f"{name} ({bench.get('model', '')}): pairs/s"]
    header = ["batch"] + [f"geoalign {p}" for p in precisions] + runtimes
    lines.append(" | ".join(header))
    for b in batches:
        cells = [str(b)]
        cells += [f"{ours[(p, b)]['pairs_per_second']:.0f}" if (p, b) in ours else "" for p in precisions]
        cells += [f"{theirs[(r, b)]['pairs_per_s']:.0f}" if (r, b) in theirs else "" for r in runtimes]
        lines.append(" | ".join(cells))

    def best(rows):
        return max(rows, key=lambda r: r[1]) if rows else None

    ours_bf16 = best([(b, r["pairs_per_second"], r) for (p, b), r in ours.items() if p == "bf16"])
    torch_bf16 = best([(b, r["pairs_per_s"], r) for (rt, b), r in theirs.items() if " bf16" in rt and "pytorch" in rt])
    if ours_bf16:
        peak = bench.get("gemm_peak_gflops", {}).get("bf16")
        share = ours_bf16[2].get("share_of_gemm_peak")
        lines.append(f"geoalign bf16 best: {ours_bf16[1]:.0f} pairs/s at batch {ours_bf16[0]}"
                     + (f", {share:.0%} of bench's bf16 GEMM peak ({peak:.0f} GFLOP/s)" if share and peak else ""))
        if torch_bf16:
            lines.append(f"PyTorch bf16 best: {torch_bf16[1]:.0f} pairs/s at batch {torch_bf16[0]}; "
                         f"geoalign / PyTorch = {ours_bf16[1] / torch_bf16[1]:.2f}x (bar: 1.5x)")
    one = ours.get(("bf16", 1))
    if one:
        lines.append(f"batch-1 latency, geoalign bf16: p50 {one['p50_batch_ms']:.3f} ms, p99 {one['p99_batch_ms']:.3f} ms "
                     f"(bar: 1 ms for BERT-base)")
        t1 = [r for (rt, b), r in theirs.items() if b == 1 and " bf16" in rt and "pytorch" in rt]
        if t1:
            lines.append(f"batch-1 latency, PyTorch bf16: median {t1[0]['batch_ms']:.3f} ms")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    parity = os.path.join(args.out, "parity.txt")
    if os.path.exists(parity):
        print("parity against the CPU's fp32 (geoalign score, same pairs):")
        print(open(parity, encoding="utf-8").read().rstrip())
        print()
    for name in ("encoder", "base"):
        print("\n".join(table(name, args.out)))
        print()


if __name__ == "__main__":
    main()
