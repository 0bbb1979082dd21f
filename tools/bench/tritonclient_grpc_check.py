#!/usr/bin/python3
"""NVIDIA's own tritonclient.grpc against `geoalign serve --grpc-port`.

    tools/bench/tritonclient_grpc_check.py --client-src DIR --protos DIR [--pairs FILE] [--limit N]

--client-src holds the `tritonclient` package from https://github.com/triton-inference-server/client
(src/python/library); --protos the protobuf folder of https://github.com/triton-inference-server/common
(grpc_service.proto, model_config.proto). Neither is installed here or vendored: the
package is copied to a temporary folder and its gRPC modules are made there from Triton's
own service definition with Debian's protoc and grpc_python_plugin, as its build does, so
the check speaks Triton's protocol, not geoalign's copy of it. Needs Debian's
python3-grpcio, python3-rapidjson, python3-packaging and python3-numpy.

Checks, against a server started on free loopback ports: health, server and model
metadata, the model config, and inference with the client's defaults (its gRPC requests
carry raw binary tensors), labels and probabilities equal to /v1/match's for the same
pairs; then the same with an API key (refused without it). Prints one line per check;
exits 1 on a mismatch.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from triton_check_common import ROOT, Checks, free_port, post, read_pairs

KEY = "gak-tritonclient-grpc-check"


def client_package(client_src, protos, into):
    """tritonclient copied into `into`, with tritonclient/grpc/{service,model_config}_pb2*.py
    made from Triton's .proto files (its build's names and imports)."""
    shutil.copytree(os.path.join(client_src, "tritonclient"), os.path.join(into, "tritonclient"))
    generated = os.path.join(into, "generated")
    os.makedirs(generated)
    subprocess.run(["protoc", f"-I{protos}", f"--python_out={generated}", f"--grpc_out={generated}",
                    f"--plugin=protoc-gen-grpc={shutil.which('grpc_python_plugin')}",
                    os.path.join(protos, "grpc_service.proto"), os.path.join(protos, "model_config.proto")],
                   check=True)
    target = os.path.join(into, "tritonclient", "grpc")
    renames = {"grpc_service_pb2.py": "service_pb2.py", "grpc_service_pb2_grpc.py": "service_pb2_grpc.py",
               "model_config_pb2.py": "model_config_pb2.py"}
    for source, name in renames.items():
        with open(os.path.join(generated, source), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"^import model_config_pb2 as", "from tritonclient.grpc import model_config_pb2 as", text,
                      flags=re.M)
        text = re.sub(r"^import grpc_service_pb2 as", "from tritonclient.grpc import service_pb2 as", text, flags=re.M)
        with open(os.path.join(target, name), "w", encoding="utf-8") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--client-src", required=True)
    ap.add_argument("--protos", required=True)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--geoalign", default=os.path.join(ROOT, "build", "release", "geoalign"))
    ap.add_argument("--pairs", help="addr1<TAB>addr2[<TAB>...] rows to send (default: four built-in pairs)")
    ap.add_argument("--limit", type=int, default=1000)
    args = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="tritonclient-grpc-")
    client_package(args.client_src, args.protos, workdir)
    sys.path.insert(0, workdir)
    import numpy as np
    import tritonclient.grpc as grpcclient

    pairs = read_pairs(args.pairs, args.limit)
    port, grpc_port = free_port(), free_port()
    server = subprocess.Popen([args.geoalign, "serve", "--model", args.model, "--port", str(port), "--grpc-port",
                               str(grpc_port), "--api-key", KEY, "--max-pairs-per-request", str(max(len(pairs), 1))],
                              stderr=subprocess.PIPE, text=True)
    check = Checks()

    headers = {"authorization": f"Bearer {KEY}"}
    try:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc_port}")
        for _ in range(600):
            try:
                if client.is_server_ready(headers=headers):
                    break
            except Exception:
                pass
            time.sleep(0.1)
        check("is_server_live / is_server_ready / is_model_ready",
              client.is_server_live() and client.is_server_ready() and client.is_model_ready("geoalign"))
        meta = client.get_server_metadata(headers=headers)
        check("get_server_metadata", meta.name == "geoalign", f"{meta.name} {meta.version} {list(meta.extensions)}")
        model_meta = client.get_model_metadata("geoalign", headers=headers)
        check("get_model_metadata", [i.name for i in model_meta.inputs] == ["addr1", "addr2"])
        config = client.get_model_config("geoalign", headers=headers).config
        check("get_model_config", config.max_batch_size > 0 and config.input[0].data_type == 13,
              f"max_batch_size {config.max_batch_size}, max_queue_delay_microseconds "
              f"{config.dynamic_batching.max_queue_delay_microseconds}")

        want = post(port, "/v1/match", {"pairs": [list(p) for p in pairs]}, KEY)["results"]
        want_labels = [r["label"] for r in want]
        want_probs = np.array([[r["probabilities"][k] for k in ("not_match", "partial_match", "exact_match")]
                               for r in want], dtype=np.float32)
        inputs = []
        for name, column in (("addr1", 0), ("addr2", 1)):
            tensor = grpcclient.InferInput(name, [len(pairs)], "BYTES")
            tensor.set_data_from_numpy(np.array([p[column] for p in pairs], dtype=object))
            inputs.append(tensor)
        result = client.infer("geoalign", inputs, headers=headers)
        labels = [x.decode() for x in result.as_numpy("label").tolist()]
        check("infer (raw binary tensors): labels equal /v1/match's", labels == want_labels,
              f"{sum(a == b for a, b in zip(labels, want_labels))}/{len(pairs)} equal")
        gap = float(np.max(np.abs(result.as_numpy("probabilities") - want_probs)))
        check("infer: probabilities equal /v1/match's", gap <= 1e-6, f"largest difference {gap:.2e}")
        outputs = [grpcclient.InferRequestedOutput("score")]
        scored = client.infer("geoalign", inputs, outputs=outputs, headers=headers)
        check("infer with one requested output", scored.as_numpy("label") is None and
              scored.as_numpy("score").shape == (len(pairs),))
        try:
            client.infer("geoalign", inputs)
            check("infer without the key is refused", False)
        except Exception as e:  # InferenceServerException
            check("infer without the key is refused", "UNAUTHENTICATED" in str(e.status()), str(e.status()))
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{len(pairs)} pairs, {check.failures} failed checks")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
