#!/usr/bin/env python3
"""The runtimes MGeo deployments reach for, on the same model folder and pairs as
geoalign's GPU bench: PyTorch eager in bf16 and fp16 (scaled_dot_product_attention where
this PyTorch has it), and ONNX Runtime's CUDA provider where it is installed with one.

    python3 tools/gpu/torch_baselines.py --model DIR [--pairs examples/bench_pairs.tsv]
        [--batch-sizes 1,2,4,...,1024] [--dtypes bf16,fp16] [--seconds 1] [--device cuda] [--json OUT.jsonl]

Pairs are tokenized once beforehand (tools/reference's tokenizer, as geoalign's bench
also leaves tokenization out) and run in padded batches, as Hugging Face runs them. Each
point is the median batch time over at least --seconds of runs after three warm-ups,
timed with CUDA events on a GPU. Beside each dtype's speed: how many labels agree with
this same model in fp32, and the relative L2 difference of the probabilities. With
--device cpu it runs on the CPU (a smoke test of the script, not a figure).
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
sys.path.insert(0, os.path.join(ROOT, "tools", "train"))
from bert_model import Bert, pad_batch  # noqa: E402
from bert_reference import BertReference  # noqa: E402
from pair_file import read_pairs  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def load_model(ref):
    """The reference's classifier (its config and weights) as a torch module, dropout off."""
    c = ref.config
    if c.get("hidden_act", "gelu") != "gelu":
        sys.exit(f"hidden_act {c['hidden_act']!r}: this baseline runs BERT's erf GELU only")
    model = Bert(c["vocab_size"], h=c["hidden_size"], layers=c["num_hidden_layers"], heads=c["num_attention_heads"],
                 inner=c["intermediate_size"], max_pos=c["max_position_embeddings"], labels=len(ref.labels),
                 dropout=0.0)
    # ref.w has the encoder's prefix taken off, whatever it was; load_hf wants Hugging Face's.
    model.load_hf({k if k.startswith("classifier.") else "bert." + k: v for k, v in ref.w.items()})
    return model.eval()


def padded(encoded, device):
    return tuple(t.to(device) for t in pad_batch(encoded))


def batches(encoded, size, device, count):
    """count padded batches of `size` pairs, cycling through the pairs."""
    out = []
    for b in range(count):
        start = (b * size) % len(encoded)
        out.append(padded([encoded[(start + k) % len(encoded)] for k in range(size)], device))
    return out


def median_ms(run, inputs, seconds, cuda_events):
    """The median time of run(input) over at least `seconds` of runs (and 5), cycling through
    inputs after three warm-ups; with cuda_events, timed on the GPU itself."""
    for item in inputs[:3]:
        run(item)
    times, spent = [], 0.0
    while spent < seconds * 1000 or len(times) < 5:
        item = inputs[len(times) % len(inputs)]
        if cuda_events:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run(item)
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            t = time.perf_counter()
            run(item)
            ms = 1000 * (time.perf_counter() - t)
        times.append(ms)
        spent += ms
    return statistics.median(times)


def probabilities(model, encoded, device, size=256):
    out = []
    for i in range(0, len(encoded), size):
        out.append(model.classify(*padded(encoded[i:i + size], device)).float().softmax(-1).cpu())
    return torch.cat(out)


def agreement(p, reference):
    labels = (p.argmax(1) == reference.argmax(1)).float().mean().item()
    return labels, (torch.linalg.norm(p - reference) / torch.linalg.norm(reference)).item()


def onnx_runtime_rows(model, encoded, sizes, seconds, workdir):
    """ONNX Runtime with its CUDA provider, fp32 model export, inputs from the host as a client
    sends them; [] with the reason when it cannot run."""
    try:
        import onnxruntime as ort
    except ImportError as e:
        return [], f"onnxruntime is not installed ({e})"
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return [], f"onnxruntime {ort.__version__} has no CUDA provider here ({ort.get_available_providers()})"
    path = os.path.join(workdir, "model.onnx")
    sample = padded(encoded[:2], "cuda")
    try:
        torch.onnx.export(model, sample, path, input_names=["input_ids", "token_type_ids", "attention_mask"],
                          output_names=["logits"], opset_version=17,
                          dynamic_axes={n: {0: "batch", 1: "length"} for n in
                                        ("input_ids", "token_type_ids", "attention_mask")})
    except Exception as e:  # the exporter differs between PyTorch versions: report, do not stop the check
        return [], f"torch.onnx.export failed: {type(e).__name__}: {e}"
    session = ort.InferenceSession(path, providers=["CUDAExecutionProvider"])
    if session.get_providers()[0] != "CUDAExecutionProvider":  # a provider that failed to load falls back quietly
        return [], f"onnxruntime's CUDA provider did not load (session providers: {session.get_providers()})"
    rows = []
    for size in sizes:
        feeds = []
        for ids, kinds, mask in batches(encoded, size, "cpu", 4):
            feeds.append({"input_ids": ids.numpy(), "token_type_ids": kinds.numpy(), "attention_mask": mask.numpy()})
        ms = median_ms(lambda feed: session.run(None, feed), feeds, seconds, cuda_events=False)
        rows.append({"runtime": "onnxruntime cuda fp32 (host inputs)", "batch": size, "batch_ms": ms,
                     "pairs_per_s": size / ms * 1000})
    return rows, f"onnxruntime {ort.__version__}, CUDA provider"


class Forward(torch.nn.Module):
    """model.classify as forward, for the ONNX exporter."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, kinds, mask):
        return self.model.classify(ids, kinds, mask)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--pairs", default=os.path.join(ROOT, "examples", "bench_pairs.tsv"))
    ap.add_argument("--batch-sizes", default="1,2,4,8,16,32,64,128,256,512,1024")
    ap.add_argument("--dtypes", default="bf16,fp16")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--json", help="append one JSON line per measured point to this file")
    args = ap.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        sys.exit("no CUDA device visible to PyTorch")
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    dtypes = args.dtypes.split(",")
    unknown = [d for d in dtypes if d not in DTYPES]
    if unknown:
        sys.exit(f"--dtypes: unknown {unknown}; known {sorted(DTYPES)}")

    ref = BertReference(args.model)
    pairs = read_pairs(args.pairs)
    encoded = [ref.tokenizer.encode_pair(ref._normalize(a), ref._normalize(b), ref.max_length) for a, b in pairs]
    tokens = sum(len(ids) for ids, _ in encoded) / len(encoded)
    model = load_model(ref).to(device)
    sdpa = hasattr(F, "scaled_dot_product_attention")  # bert_model uses it where PyTorch has it
    rows = []

    def keep(row):
        """Each point is written as soon as it is measured: a later failure loses only what follows."""
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as f:
                f.write(json.dumps({"model": args.model, "device": str(device), **row}) + "\n")

    # no_grad rather than inference_mode: dtype casts under inference_mode would leave the
    # parameters inference tensors, which the ONNX exporter below cannot trace.
    with torch.no_grad():
        reference = probabilities(model, encoded, device)
        for name in dtypes:
            model.to(DTYPES[name])
            labels, rel = agreement(probabilities(model, encoded, device), reference)
            for size in sizes:
                ms = median_ms(lambda batch: model.classify(*batch), batches(encoded, size, device, 8),
                               args.seconds, cuda_events=device.type == "cuda")
                keep({"runtime": f"pytorch {torch.__version__} eager {name}" + (" sdpa" if sdpa else ""),
                      "batch": size, "batch_ms": ms, "pairs_per_s": size / ms * 1000,
                      "labels_agree_with_fp32": labels, "relative_l2_vs_fp32": rel})
            model.float()
        ort_note = "not measured on the CPU"
        if device.type == "cuda":
            try:
                with tempfile.TemporaryDirectory() as workdir:
                    ort_rows, ort_note = onnx_runtime_rows(Forward(model), encoded, sizes, args.seconds, workdir)
                for row in ort_rows:
                    keep(row)
            except Exception as e:  # ONNX Runtime is a side-by-side: its failure must not fail the check
                ort_note = f"failed: {type(e).__name__}: {e}"

    print(f"\n{args.model}: {ref.layers} layers x {ref.hidden}, {len(pairs)} pairs of {tokens:.1f} tokens on average, "
          f"{device}" + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else ""))
    print(f"{'runtime':46} {'batch':>6} {'ms/batch':>9} {'pairs/s':>10} {'labels = fp32':>14}")
    for r in rows:
        agree = r.get("labels_agree_with_fp32")
        print(f"{r['runtime']:46} {r['batch']:6d} {r['batch_ms']:9.3f} {r['pairs_per_s']:10.0f} "
              f"{'' if agree is None else f'{agree:.4f}':>14}")
    print(f"onnx runtime: {ort_note}")
    if any(not math.isfinite(r["batch_ms"]) for r in rows):
        sys.exit("a timing was not finite")


if __name__ == "__main__":
    main()
