#!/usr/bin/python3
"""Converts a Hugging Face folder's pytorch_model.bin (e.g. MGeo's) to the
model.safetensors geoalign reads, keeping every tensor name, shape and dtype.

    /usr/bin/python3 tools/convert_to_safetensors.py MODEL_DIR

Needs Debian's python3-torch. The .bin file is left in place.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
import safetensors_io  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    source = os.path.join(folder, "pytorch_model.bin")
    state = torch.load(source, map_location="cpu")
    if "state_dict" in state and isinstance(state["state_dict"], dict):
        state = state["state_dict"]
    tensors = {k: v for k, v in state.items() if isinstance(v, torch.Tensor)}
    skipped = sorted(set(state) - set(tensors))
    # Tied or shared tensors must be written as separate copies.
    tensors = {k: v.clone().contiguous() for k, v in tensors.items()}
    safetensors_io.save(tensors, os.path.join(folder, "model.safetensors"), {"format": "pt"})
    print(f"wrote {len(tensors)} tensors to {folder}/model.safetensors" + (f"; skipped non-tensors {skipped}" if skipped else ""))


if __name__ == "__main__":
    main()
