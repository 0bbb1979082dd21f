#!/usr/bin/python3
"""Builds tests/fixtures/tiny_mgeo, a tiny random model in MGeo's layout, and its golden
file tests/golden/tiny_mgeo_outputs.json, so CI needs no PyTorch.

    /usr/bin/python3 tools/reference/make_mgeo_fixture.py

The model is written as MGeo ships it (pytorch_model.bin with `bert.text_encoder.` names,
the `embeddings.position_ids` buffer, 3 layers with fusion_layer 2 and cross-attention in
layer 2 whose key and value read encoder_width-wide states, config.json beside
ModelScope's configuration.json), converted with tools/convert_to_safetensors.py, and
only the converted folder is kept. The golden logits come from MGeoReference on the .bin
file. Deterministic: the same seed gives the same files.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import safetensors_io  # noqa: E402
from bert_reference import BertReference  # noqa: E402
from bert_tokenizer import load_vocab  # noqa: E402
from make_fixture import PAIRS, write_vocab  # noqa: E402
from mgeo_reference import MGeoReference  # noqa: E402
from random_bert import random_bert_weights  # noqa: E402

PREFIX = "bert.text_encoder."
# What a ModelScope model folder carries beside config.json; geoalign does not read it.
CONFIGURATION = {
    "framework": "pytorch",
    "task": "sentence-similarity",
    "model": {"type": "mgeo", "finetune_mode": "single-modal"},
    "pipeline": {"type": "sentence-similarity"},
    "preprocessor": {"type": "sen-sim-tokenizer", "first_sequence": "sentence1", "second_sequence": "sentence2"},
}


def mgeo_weights(config, encoder_width, seed):
    w = random_bert_weights(config, seed=seed, std=0.3, classifier_std=0.4, prefix=PREFIX)
    g = torch.Generator().manual_seed(seed + 1)
    h = config["hidden_size"]
    for l in range(config["fusion_layer"], config["num_hidden_layers"]):
        p = f"{PREFIX}encoder.layer.{l}.crossattention."
        w[p + "self.query.weight"] = torch.randn(h, h, generator=g) * 0.3
        w[p + "self.query.bias"] = torch.randn(h, generator=g) * 0.3
        for part in ("key", "value"):
            w[p + f"self.{part}.weight"] = torch.randn(h, encoder_width, generator=g) * 0.3
            w[p + f"self.{part}.bias"] = torch.randn(h, generator=g) * 0.3
        w[p + "output.dense.weight"] = torch.randn(h, h, generator=g) * 0.3
        w[p + "output.dense.bias"] = torch.randn(h, generator=g) * 0.3
        w[p + "output.LayerNorm.weight"] = 1.0 + torch.randn(h, generator=g) * 0.1
        w[p + "output.LayerNorm.bias"] = torch.randn(h, generator=g) * 0.1
    # Older transformers saved BertEmbeddings' position_ids buffer in the state dict.
    w[PREFIX + "embeddings.position_ids"] = torch.arange(config["max_position_embeddings"]).unsqueeze(0)
    return w


def main():
    torch.set_num_threads(2)
    folder = os.path.join(ROOT, "tests", "fixtures", "tiny_mgeo")
    golden_path = os.path.join(ROOT, "tests", "golden", "tiny_mgeo_outputs.json")
    with tempfile.TemporaryDirectory() as tmp:
        write_vocab(os.path.join(tmp, "vocab.txt"))
        config = {
            "architectures": ["MGeoForSequenceClassification"], "model_type": "bert",
            "vocab_size": len(load_vocab(os.path.join(tmp, "vocab.txt"))), "hidden_size": 16,
            "num_hidden_layers": 3, "fusion_layer": 2, "gis_embedding": 0, "encoder_width": 24,
            "num_attention_heads": 4, "intermediate_size": 32, "hidden_act": "gelu", "max_position_embeddings": 64,
            "type_vocab_size": 2, "layer_norm_eps": 1e-12,
            "id2label": {"0": "not_match", "1": "partial_match", "2": "exact_match"},
            "label2id": {"not_match": 0, "partial_match": 1, "exact_match": 2},
        }
        weights = mgeo_weights(config, config["encoder_width"], seed=20261201)
        torch.save(weights, os.path.join(tmp, "pytorch_model.bin"))
        with open(os.path.join(tmp, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, ensure_ascii=False, indent=2)
        with open(os.path.join(tmp, "configuration.json"), "w", encoding="utf-8") as f:
            json.dump(CONFIGURATION, f, ensure_ascii=False, indent=2)
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "convert_to_safetensors.py"), tmp], check=True)

        # The converter keeps every tensor, name, dtype and value.
        converted = safetensors_io.load(os.path.join(tmp, "model.safetensors"))
        assert sorted(converted) == sorted(weights), "converter changed the tensor names"
        for name, t in weights.items():
            assert converted[name].dtype == t.dtype and torch.equal(converted[name], t), name

        with torch.inference_mode():
            mgeo = MGeoReference(tmp)  # reads pytorch_model.bin
            logits = mgeo.logits(PAIRS)
            # What a plain BERT reading every layer (geoalign before fusion_layer) computes.
            plain = BertReference(tmp)
            all_layers = plain.logits(PAIRS)
        probabilities = torch.softmax(logits, -1)
        all_probabilities = torch.softmax(all_layers, -1)
        gap = (probabilities - all_probabilities).abs().max().item()
        assert gap > 0.05, f"running all layers gives nearly the same answer ({gap}); the fixture would prove nothing"

        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.makedirs(folder)
        for name in ("config.json", "configuration.json", "vocab.txt", "model.safetensors"):
            shutil.copy(os.path.join(tmp, name), os.path.join(folder, name))
    golden = {
        "pairs": [list(p) for p in PAIRS],
        "logits": logits.tolist(),
        "probabilities": probabilities.tolist(),
        "all_layers_probabilities": all_probabilities.tolist(),
    }
    with open(golden_path, "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False)
    print(f"wrote {folder} and {golden_path}; text layers vs all layers: max probability gap {gap:.3f}")


if __name__ == "__main__":
    main()
