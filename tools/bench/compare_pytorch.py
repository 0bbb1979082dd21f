#!/usr/bin/python3
"""geoalign beside PyTorch on the same model folder and the same address pairs.

    /usr/bin/python3 tools/bench/compare_pytorch.py --model DIR [--pairs examples/bench_pairs.tsv]
        [--geoalign build/release/geoalign] [--precisions fp32,int8] [--whole-pairs 4000] [--repeats 3]

PyTorch (Debian's 1.13, 2 threads, inference_mode, padded batches as Hugging Face runs
them, tokenization excluded) is measured in fp32 and with bf16 autocast: pairs/s at
batch 64 and ms per pair at batch 1. geoalign is measured as a user runs it: the whole
`geoalign score` process (start, model load, tokenization, scoring, output) over
--whole-pairs pairs, and batch-1 latency from `geoalign bench`, both on the folder without
its heads, so that geoalign too decides from the encoder and its classifier. The table ends with the
ratios. Make a BERT-base-shaped folder with tools/make_random_model.py --shape base.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
from bert_reference import BertReference  # noqa: E402
from pair_file import read_pairs  # noqa: E402


def torch_rates(ref, encoded, bf16, seconds):
    """(pairs/s at batch 64, ms per pair at batch 1) for the encoder and classifier."""
    def run(batch):
        h, _ = ref.encode(batch)
        pooled = torch.tanh(ref._linear(h[:, 0], "pooler.dense"))
        return torch.nn.functional.linear(pooled, ref.w["classifier.weight"], ref.w["classifier.bias"])

    def timed(batch_size):
        done, spent, latencies, i = 0, 0.0, [], 0
        while spent < seconds or not latencies:
            batch = [encoded[(i + k) % len(encoded)] for k in range(batch_size)]
            i += batch_size
            start = time.perf_counter()
            run(batch)
            latencies.append(time.perf_counter() - start)
            spent += latencies[-1]
            done += batch_size
        return done / spent, 1000 * statistics.median(latencies)

    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        run(encoded[:8])  # warm-up
        throughput, _ = timed(64)
        _, latency = timed(1)
    return throughput, latency


HEAD_FILES = ("match_head.json", "match_head_ordered.json", "rerank_head.json")


def encoder_only(model, into):
    """A view of the folder without its heads (links to its other files): `geoalign score`
    then decides from the encoder and its classifier, the work PyTorch does here (the
    bundled match heads read no encoder, and would time trees instead)."""
    for name in os.listdir(model):
        if name not in HEAD_FILES:
            os.symlink(os.path.abspath(os.path.join(model, name)), os.path.join(into, name))
    return into


def geoalign_rates(binary, model, pairs_path, pairs, whole_pairs, precision):
    with tempfile.TemporaryDirectory() as folder, \
            tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8") as f:
        model = encoder_only(model, folder)
        for i in range(whole_pairs):
            a, b = pairs[i % len(pairs)]
            f.write(f"{a}\t{b}\n")
        f.flush()
        start = time.perf_counter()
        subprocess.run([binary, "score", "--model", model, "--precision", precision, f.name], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        whole = whole_pairs / (time.perf_counter() - start)
        bench = json.loads(subprocess.run([binary, "bench", "--model", model, "--input", pairs_path, "--precision",
                                           precision, "--batch-sizes", "1", "--seconds", "3", "--json"],
                                          check=True, capture_output=True, text=True).stdout)
    return whole, bench["results"][0]["p50_batch_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--pairs", default=os.path.join(ROOT, "examples", "bench_pairs.tsv"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--precisions", default="fp32,bf16,int8")
    ap.add_argument("--whole-pairs", type=int, default=4000)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--repeats", type=int, default=1,
                    help="measure every row this many times, in interleaved rounds (so a slow spell of a shared "
                         "machine hits every row alike), and report each figure's median")
    args = ap.parse_args()
    torch.set_num_threads(2)

    pairs = read_pairs(args.pairs)
    ref = BertReference(args.model)
    encoded = [ref.tokenizer.encode_pair(ref._normalize(a), ref._normalize(b), ref.max_length) for a, b in pairs]
    measures = [(name, lambda bf16=bf16: torch_rates(ref, encoded, bf16, args.seconds))
                for name, bf16 in (("pytorch fp32", False), ("pytorch bf16 autocast", True))]
    measures += [(f"geoalign {precision} (whole process)",
                  lambda precision=precision: geoalign_rates(args.geoalign, args.model, args.pairs, pairs,
                                                             args.whole_pairs, precision))
                 for precision in args.precisions.split(",")]
    samples = {name: [] for name, _ in measures}
    for _ in range(max(1, args.repeats)):
        for name, measure in measures:
            samples[name].append(measure())
    rows = [(name, statistics.median(t for t, _ in runs), statistics.median(l for _, l in runs))
            for name, runs in samples.items()]

    print(f"model {args.model}: {ref.layers} layers x {ref.hidden} hidden; {len(pairs)} pairs from {args.pairs}; "
          f"2 threads" + (f"; medians of {args.repeats} interleaved rounds" if args.repeats > 1 else ""))
    print(f"{'':38} {'pairs/s (batch 64)':>19} {'ms/pair (batch 1)':>18}")
    for name, throughput, latency in rows:
        print(f"{name:38} {throughput:19.1f} {latency:18.2f}")
    for name, throughput, latency in rows[2:]:
        for reference in rows[:2]:
            print(f"{name} vs {reference[0]}: {throughput / reference[1]:.1f}x the throughput, "
                  f"{latency / reference[2]:.2f}x the batch-1 latency")


if __name__ == "__main__":
    main()
