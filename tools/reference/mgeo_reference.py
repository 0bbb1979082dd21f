"""PyTorch reference for MGeo's sequence classifier as ModelScope runs it
(modelscope/models/multi_modal/mgeo/text_classification.py and backbone.py):

- MGeoForSequenceClassification holds `bert` = MGeo, whose `text_encoder` is a BertModel
  with a pooler, so the encoder's parameters are named `bert.text_encoder.*`, the head's
  `classifier.*`.
- With gis_embedding == 0 the embeddings are BERT's (word + token type + absolute position,
  LayerNorm); the classifier passes token_type_ids (use_token_type=True).
- The text encoder runs in mode 'text': layers [0, fusion_layer) only. Layers from
  fusion_layer on hold `crossattention` and are the fusion layers; they are not run.
- Padding is masked by adding -10000 (MGeo's own get_extended_attention_mask).
- The pooler is BERT's (tanh of a dense layer on the [CLS] state), then `classifier`.

Read from the folder's pytorch_model.bin when it has one (the checkpoint as MGeo ships
it), else from model.safetensors.
"""
import json
import os

import torch

from bert_reference import BertReference

GIS_EMBEDDINGS = ("rel_type_embeddings", "absolute_x_embeddings", "absolute_y_embeddings", "relative_x_embeddings",
                  "relative_y_embeddings", "prov_embeddings", "city_embeddings", "dist_embeddings")


class MGeoReference(BertReference):
    def __init__(self, folder):
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        if config.get("gis_embedding", 0) != 0:
            raise SystemExit(f"{folder}: gis_embedding != 0 (GisEmbeddings needs geographic inputs): not modelled")
        bin_path = os.path.join(folder, "pytorch_model.bin")
        weights = torch.load(bin_path, map_location="cpu") if os.path.exists(bin_path) else None
        super().__init__(folder, weights)
        fusion = config["fusion_layer"]
        if not 0 < fusion <= self.layers:
            raise SystemExit(f"{folder}: fusion_layer {fusion} outside [1, {self.layers}]")
        for name in self.w:
            if any(name.startswith(f"embeddings.{g}.") for g in GIS_EMBEDDINGS):
                raise SystemExit(f"{folder}: GIS embedding {name}: not modelled")
            if name.startswith("encoder.layer.") and ".crossattention." in name:
                if int(name.split(".")[2]) < fusion:
                    raise SystemExit(f"{folder}: {name}: cross-attention below fusion_layer")
        self.run_layers = range(0, fusion)  # BertEncoder.forward, mode == 'text'
        self.mask_value = -10000.0
