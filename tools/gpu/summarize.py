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
    """{(precision, batch): result}, and the bench JSON itself; empty when bench failed."""
    try:
        with open(path, encoding="utf-8") as f:
            bench = json.load(f)
        return {(r["precision"], r["batch_size"]): r for r in bench["results"]}, bench
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: no bench results ({type(e).__name__}: {e})")
        return {}, {}


def load_torch(path):
    rows = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                rows[(r["runtime"], r["batch"])] = r
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: no PyTorch results ({type(e).__name__}: {e})")
    return rows


def table(name, out):
    ours, bench = load_bench(os.path.join(out, f"bench_{name}.json"))
    theirs = load_torch(os.path.join(out, f"torch_{name}.jsonl"))
    if not ours and not theirs:
        return [f"{name}: nothing measured"]
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

    torch_bf16_rows = {b: r for (rt, b), r in theirs.items() if rt.startswith("pytorch") and " bf16" in rt}
    ours_bf16 = best([(b, r["pairs_per_second"], r) for (p, b), r in ours.items() if p == "bf16"])
    torch_bf16 = best([(b, r["pairs_per_s"], r) for b, r in torch_bf16_rows.items()])
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
        lines.append(f"batch-1 latency, geoalign bf16: p50 {one['p50_batch_ms']:.3f} ms, p99 {one['p99_batch_ms']:.3f} ms"
                     + (" (bar: 1 ms)" if name == "base" else ""))
        if 1 in torch_bf16_rows:
            lines.append(f"batch-1 latency, PyTorch bf16: median {torch_bf16_rows[1]['batch_ms']:.3f} ms")
    # A baseline is only a baseline if it computes the model: its dtypes against its own fp32.
    for runtime in runtimes:
        r = next((r for (rt, _), r in theirs.items() if rt == runtime and "labels_agree_with_fp32" in r), None)
        if r:
            lines.append(f"{runtime} against its own fp32: labels agree {r['labels_agree_with_fp32']:.4f}, "
                         f"relative L2 {r['relative_l2_vs_fp32']:.2e}")
    lines.append("geoalign's pairs/s is bench's mean over its batches, PyTorch's from its median batch; neither "
                 "counts tokenizing, and PyTorch's leaves out building the padded batch and copying it to the GPU")
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
        try:
            print("\n".join(table(name, args.out)))
        except Exception as e:  # one model's odd results must not hide the other's table
            print(f"{name}: could not summarize ({type(e).__name__}: {e})")
        print()


if __name__ == "__main__":
    main()
