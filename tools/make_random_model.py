#!/usr/bin/python3
"""Writes a BERT classifier folder in Hugging Face layout with random weights, for parity
checks and benchmarks (e.g. a BERT-base-shaped folder for the large-model row).

    /usr/bin/python3 tools/make_random_model.py OUT_DIR [--shape small|base] [--chars FILE ...]

The vocabulary is character-level: [PAD] [UNK] [CLS] [SEP] [MASK], ASCII, '##' forms of
digits and Latin letters (so "455" stays 4 ##5 ##5), then every character seen in the
--chars files (any text; addresses work best), most frequent first.
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
from random_bert import random_bert_weights, write_folder  # noqa: E402

SHAPES = {
    "small": dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024),
    "base": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072),
}


def build_vocab(char_files, max_chars):
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += [chr(c) for c in range(33, 127) if not chr(c).isupper()]
    tokens += ["##" + c for c in "0123456789abcdefghijklmnopqrstuvwxyz"]
    counts = collections.Counter()
    for path in char_files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                counts.update(c for c in line.lower() if not c.isspace())
    seen = set(tokens)
    for c, _ in counts.most_common():
        if len(tokens) >= max_chars:
            break
        if c not in seen and c != "\ufffd":
            seen.add(c)
            tokens.append(c)
    return tokens


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--shape", choices=SHAPES, default="small")
    ap.add_argument("--chars", nargs="*", default=[])
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    tokens = build_vocab(args.chars, args.vocab_size)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert", "vocab_size": len(tokens),
              "hidden_act": "gelu", "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
              "id2label": {"0": "not_match", "1": "partial_match", "2": "exact_match"},
              "label2id": {"not_match": 0, "partial_match": 1, "exact_match": 2}, **SHAPES[args.shape]}
    # Larger-than-BERT init spreads the random model's outputs, which makes parity checks bite.
    write_folder(args.out, config, random_bert_weights(config, seed=args.seed, std=0.08, classifier_std=0.5))
    print(f"wrote {args.out}: {args.shape}, vocab {len(tokens)}")


if __name__ == "__main__":
    main()
