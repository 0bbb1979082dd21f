"""Random BERT classifier folders in Hugging Face layout, for fixtures and benchmarks."""
import json
import os

import torch

import safetensors_io


def random_bert_weights(config, seed=0, std=0.02, classifier_std=None, prefix="bert."):
    g = torch.Generator().manual_seed(seed)
    h, inner = config["hidden_size"], config["intermediate_size"]
    labels = len(config.get("id2label", {})) or 2

    def normal(*shape, s=std):
        return torch.randn(*shape, generator=g) * s

    def norm_pair(name, w):
        w[name + ".weight"] = 1.0 + normal(h, s=0.1)
        w[name + ".bias"] = normal(h, s=0.1)

    w = {}
    e = prefix + "embeddings."
    w[e + "word_embeddings.weight"] = normal(config["vocab_size"], h, s=1.0)
    w[e + "position_embeddings.weight"] = normal(config["max_position_embeddings"], h, s=0.5)
    w[e + "token_type_embeddings.weight"] = normal(config["type_vocab_size"], h, s=0.5)
    norm_pair(e + "LayerNorm", w)
    for l in range(config["num_hidden_layers"]):
        p = f"{prefix}encoder.layer.{l}."
        for part in ("query", "key", "value"):
            w[p + f"attention.self.{part}.weight"] = normal(h, h)
            w[p + f"attention.self.{part}.bias"] = normal(h)
        w[p + "attention.output.dense.weight"] = normal(h, h)
        w[p + "attention.output.dense.bias"] = normal(h)
        norm_pair(p + "attention.output.LayerNorm", w)
        w[p + "intermediate.dense.weight"] = normal(inner, h)
        w[p + "intermediate.dense.bias"] = normal(inner)
        w[p + "output.dense.weight"] = normal(h, inner)
        w[p + "output.dense.bias"] = normal(h)
        norm_pair(p + "output.LayerNorm", w)
    w[prefix + "pooler.dense.weight"] = normal(h, h)
    w[prefix + "pooler.dense.bias"] = normal(h)
    w["classifier.weight"] = normal(labels, h, s=classifier_std or std)
    w["classifier.bias"] = normal(labels, s=classifier_std or std)
    return w


def write_folder(folder, config, weights):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
    safetensors_io.save(weights, os.path.join(folder, "model.safetensors"), {"format": "pt"})
