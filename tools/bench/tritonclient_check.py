#!/usr/bin/python3
"""NVIDIA's own tritonclient.http against `geoalign serve`, with the client's defaults.

    tools/bench/tritonclient_check.py --client-src DIR [--model models/default] [--pairs FILE] [--limit N]

DIR holds the `tritonclient` package from https://github.com/triton-inference-server/client
(src/python/library); it is not installed here and not vendored. Needs Debian's
python3-geventhttpclient, python3-rapidjson and python3-numpy.

Checks, against a server started on a free loopback port: health, server and model
metadata, the model config, and inference with binary inputs and outputs (the client's
default for set_data_from_numpy) and with JSON, each giving the labels and probabilities
/v1/match gives for the same pairs. Prints one line per check; exits 1 on a mismatch.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from triton_check_common import ROOT, Checks, free_port, post, read_pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--client-src", required=True)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--pairs", help="addr1<TAB>addr2[<TAB>...] rows to send (default: four built-in pairs)")
    ap.add_argument("--limit", type=int, default=256)
    args = ap.parse_args()
    sys.path.insert(0, args.client_src)
    import numpy as np
    import tritonclient.http as httpclient

    pairs = read_pairs(args.pairs, args.limit)
    port = free_port()
    server = subprocess.Popen([args.geoalign, "serve", "--model", args.model, "--port", str(port),
                               "--max-pairs-per-request", str(max(len(pairs), 1))], stderr=subprocess.PIPE, text=True)
    check = Checks()

    try:
        client = httpclient.InferenceServerClient(f"127.0.0.1:{port}")
        for _ in range(600):
            try:
                if client.is_server_ready():
                    break
            except Exception:
                pass
            time.sleep(0.1)
        check("is_server_live / is_server_ready / is_model_ready",
              client.is_server_live() and client.is_server_ready() and client.is_model_ready("geoalign"))
        meta = client.get_server_metadata()
        check("get_server_metadata lists binary_tensor_data", "binary_tensor_data" in meta.get("extensions", []),
              json.dumps(meta, ensure_ascii=False))
        model_meta = client.get_model_metadata("geoalign")
        check("get_model_metadata", {i["name"] for i in model_meta["inputs"]} >= {"addr1", "addr2"})
        config = client.get_model_config("geoalign")
        check("get_model_config", config.get("max_batch_size", 0) > 0, f"max_batch_size {config.get('max_batch_size')}")

        want = post(port, "/v1/match", {"pairs": [list(p) for p in pairs]})["results"]
        want_labels = [r["label"] for r in want]
        want_probs = np.array([[r["probabilities"][k] for k in ("not_match", "partial_match", "exact_match")]
                               for r in want], dtype=np.float32)
        for binary in (True, False):
            inputs = []
            for name, column in (("addr1", 0), ("addr2", 1)):
                tensor = httpclient.InferInput(name, [len(pairs)], "BYTES")
                tensor.set_data_from_numpy(np.array([p[column] for p in pairs], dtype=object), binary_data=binary)
                inputs.append(tensor)
            outputs = [httpclient.InferRequestedOutput(n, binary_data=binary) for n in ("label", "probabilities")]
            result = client.infer("geoalign", inputs, outputs=outputs)
            labels = [x.decode() if isinstance(x, bytes) else x for x in result.as_numpy("label").tolist()]
            probs = result.as_numpy("probabilities")
            kind = "binary" if binary else "JSON"
            check(f"infer, {kind} inputs and outputs: labels equal /v1/match's", labels == want_labels,
                  f"{sum(a == b for a, b in zip(labels, want_labels))}/{len(pairs)} equal")
            gap = float(np.max(np.abs(probs - want_probs))) if len(pairs) else 0.0
            check(f"infer, {kind}: probabilities equal /v1/match's", gap <= 1e-6, f"largest difference {gap:.2e}")
        # The client's one-call default: set_data_from_numpy() with no binary_data argument.
        tensors = []
        for name, column in (("addr1", 0), ("addr2", 1)):
            tensor = httpclient.InferInput(name, [len(pairs)], "BYTES")
            tensor.set_data_from_numpy(np.array([p[column] for p in pairs], dtype=object))
            tensors.append(tensor)
        result = client.infer("geoalign", tensors)
        labels = [x.decode() for x in result.as_numpy("label").tolist()]
        check("infer with every default (binary inputs, all outputs)", labels == want_labels)
    finally:
        server.terminate()
        server.wait(30)
    print(f"{len(pairs)} pairs, {check.failures} failed checks")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
