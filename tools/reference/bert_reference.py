#!/usr/bin/python3
"""PyTorch reference for geoalign: BertForSequenceClassification written out from torch
primitives (Debian's python3-torch has no `transformers`), run on padded batches with
Hugging Face's additive attention mask, exactly as Hugging Face computes it.

    /usr/bin/python3 tools/reference/bert_reference.py --model DIR [pairs.tsv] > out.tsv

prints the same TSV columns as `geoalign score`, so the two can be compared row by row.
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import address_normalizer  # noqa: E402
import safetensors_io  # noqa: E402
from bert_tokenizer import BertTokenizer  # noqa: E402

ACTIVATIONS = {
    "gelu": F.gelu,
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}
PREFIXES = ["bert.", "bert.text_encoder.", "text_encoder.", ""]


class BertReference:
    """weights: a state dict to use instead of the folder's model.safetensors."""

    def __init__(self, folder, weights=None):
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            self.config = json.load(f)
        c = self.config
        self.hidden = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        self.layers = c["num_hidden_layers"]
        self.run_layers = range(self.layers)  # MGeoReference runs fewer
        self.mask_value = None  # the additive mask of padding: the dtype's minimum, as Hugging Face
        self.eps = c.get("layer_norm_eps", 1e-12)
        self.act = ACTIVATIONS[c.get("hidden_act", "gelu")]
        id2label = c.get("id2label") or {str(i): f"LABEL_{i}" for i in range(c.get("num_labels", 2))}
        self.labels = [id2label[str(i)] for i in range(len(id2label))]
        g = c.get("geoalign", {})
        self.max_length = g.get("max_length", min(128, c.get("max_position_embeddings", 512)))
        self.normalize = g.get("normalize", {})
        self.tokenizer = BertTokenizer.from_folder(folder)
        w = weights if weights is not None else safetensors_io.load(os.path.join(folder, "model.safetensors"))
        prefix = next(p for p in PREFIXES if p + "embeddings.word_embeddings.weight" in w)
        self.w = {k[len(prefix):] if k.startswith(prefix) else k: v.float() for k, v in w.items()}

    def _normalize(self, text):
        """geoalign's own clean-up, only when the folder asks for it (see src/text/normalize.h)."""
        return address_normalizer.normalize(text, self.normalize)

    def _linear(self, x, name):
        return F.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def _ln(self, x, name):
        return F.layer_norm(x, (self.hidden,), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def encode(self, encoded):
        """encoded: list of (input_ids, token_type_ids). Returns hidden [B, L, H] and the mask."""
        n, length = len(encoded), max(len(ids) for ids, _ in encoded)
        ids = torch.zeros(n, length, dtype=torch.long)
        types = torch.zeros(n, length, dtype=torch.long)
        mask = torch.zeros(n, length)
        for i, (a, t) in enumerate(encoded):
            ids[i, :len(a)] = torch.tensor(a)
            types[i, :len(t)] = torch.tensor(t)
            mask[i, :len(a)] = 1
        pos = torch.arange(length).unsqueeze(0).expand(n, length)
        x = F.embedding(ids, self.w["embeddings.word_embeddings.weight"])
        x = x + F.embedding(types, self.w["embeddings.token_type_embeddings.weight"])
        x = x + F.embedding(pos, self.w["embeddings.position_embeddings.weight"])
        x = self._ln(x, "embeddings.LayerNorm")
        dtype = torch.get_autocast_cpu_dtype() if torch.is_autocast_cpu_enabled() else torch.float32
        additive = (1.0 - mask[:, None, None, :]) * (self.mask_value if self.mask_value is not None
                                                     else torch.finfo(dtype).min)
        d = self.hidden // self.heads
        for l in self.run_layers:
            p = f"encoder.layer.{l}."

            def split(t):
                return t.view(n, length, self.heads, d).transpose(1, 2)

            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + additive
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(n, length, self.hidden)
            x = self._ln(self._linear(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            inner = self.act(self._linear(x, p + "intermediate.dense"))
            x = self._ln(self._linear(inner, p + "output.dense") + x, p + "output.LayerNorm")
        return x, mask

    def logits(self, pairs):
        encoded = [self.tokenizer.encode_pair(self._normalize(a), self._normalize(b), self.max_length)
                   for a, b in pairs]
        h, _ = self.encode(encoded)
        pooled = torch.tanh(self._linear(h[:, 0], "pooler.dense"))
        return F.linear(pooled, self.w["classifier.weight"], self.w["classifier.bias"]).float()

    def embed(self, addresses, pooling="mean"):
        encoded = [self.tokenizer.encode_single(self._normalize(a), self.max_length) for a in addresses]
        h, mask = self.encode(encoded)
        if pooling == "cls":
            return h[:, 0].float()
        return ((h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)).float()


def label_roles(labels):
    names = {"not_match": 0, "不匹配": 0, "partial_match": 1, "部分匹配": 1, "exact_match": 2, "完全匹配": 2}
    if all(l.lower() in names for l in labels):
        return {names[l.lower()]: i for i, l in enumerate(labels)}
    if len(labels) == 3:
        return {0: 0, 1: 1, 2: 2}
    return {0: 0, 2: 1}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("input", nargs="?", default="-")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    with open(os.path.join(args.model, "config.json"), encoding="utf-8") as f:
        mgeo = "fusion_layer" in json.load(f)
    if mgeo:  # MGeo's forward: its text layers only
        from mgeo_reference import MGeoReference
        ref = MGeoReference(args.model)
    else:
        ref = BertReference(args.model)
    roles = label_roles(ref.labels)
    src = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
    pairs = []
    for n, line in enumerate(src):
        line = line.rstrip("\n").rstrip("\r")
        if n == 0 and line.startswith("addr1\taddr2"):
            continue
        a, b = line.split("\t")[:2]
        pairs.append((a, b))
    print("addr1\taddr2\tlabel\tscore\tp_not_match\tp_partial_match\tp_exact_match")
    with torch.inference_mode():
        for i in range(0, len(pairs), args.batch_size):
            chunk = pairs[i:i + args.batch_size]
            probs = torch.softmax(ref.logits(chunk), dim=-1)
            for (a, b), p in zip(chunk, probs.tolist()):
                role = [p[roles[r]] if r in roles else 0.0 for r in range(3)]
                label = ref.labels[max(range(len(p)), key=p.__getitem__)]
                score = role[2] + 0.5 * role[1]
                print(f"{a}\t{b}\t{label}\t{score:.6f}\t{role[0]:.6f}\t{role[1]:.6f}\t{role[2]:.6f}")


if __name__ == "__main__":
    main()
