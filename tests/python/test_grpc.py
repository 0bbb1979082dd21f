"""KServe v2 over gRPC (`geoalign serve --grpc-port`) from Python's grpcio, with stubs made
at test time from the service definition in src/serve/grpc: the answers equal /v1/match's,
the raw binary tensors read as the KServe and Triton clients read them, and a key is
needed where HTTP needs one."""

from __future__ import annotations

import importlib
import struct
import subprocess
import sys

import pytest

grpc = pytest.importorskip("grpc")
pytest.importorskip("grpc_tools")

from conftest import MODEL, ROOT, read_pairs  # noqa: E402
from serve_process import Server  # noqa: E402

PROTO_DIR = ROOT / "src" / "serve" / "grpc"


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    out = tmp_path_factory.mktemp("kserve_stubs")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}", f"--python_out={out}",
                    f"--grpc_python_out={out}", str(PROTO_DIR / "kserve_v2.proto")], check=True)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("kserve_v2_pb2"), importlib.import_module("kserve_v2_pb2_grpc")
    finally:
        sys.path.remove(str(out))


def grpc_port(server: Server) -> int:
    for line in server.log().splitlines():
        if "KServe v2 gRPC on " in line:
            return int(line.rsplit(":", 1)[1])
    raise AssertionError(server.log())


def raw_bytes(values: list[str]) -> bytes:
    return b"".join(struct.pack("<I", len(v.encode())) + v.encode() for v in values)


def read_raw_bytes(raw: bytes) -> list[str]:
    out, at = [], 0
    while at < len(raw):
        (size,) = struct.unpack_from("<I", raw, at)
        out.append(raw[at + 4:at + 4 + size].decode())
        at += 4 + size
    return out


def infer_request(pb, pairs, raw: bool, model: str = "geoalign"):
    request = pb.ModelInferRequest(model_name=model)
    for name, column in (("addr1", [a for a, _ in pairs]), ("addr2", [b for _, b in pairs])):
        tensor = request.inputs.add(name=name, datatype="BYTES", shape=[len(column)])
        if raw:
            request.raw_input_contents.append(raw_bytes(column))
        else:
            tensor.contents.bytes_contents.extend(v.encode() for v in column)
    return request


def test_grpc_answers_equal_v1_match(cli, stubs):
    pb, rpc = stubs
    pairs = read_pairs()
    with Server(cli, "--model", str(MODEL), "--grpc-port", "0") as server:
        status, answer = server.post("/v1/match", {"pairs": [list(p) for p in pairs]})
        assert status == 200, answer
        want = answer["results"]
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port(server)}") as channel:
            stub = rpc.GRPCInferenceServiceStub(channel)
            assert stub.ServerLive(pb.ServerLiveRequest()).live
            assert stub.ServerReady(pb.ServerReadyRequest()).ready
            assert stub.ModelReady(pb.ModelReadyRequest(name="geoalign")).ready
            metadata = stub.ModelMetadata(pb.ModelMetadataRequest(name="geoalign"))
            assert [t.name for t in metadata.inputs] == ["addr1", "addr2"]
            for raw in (False, True):
                got = stub.ModelInfer(infer_request(pb, pairs, raw))
                assert [o.name for o in got.outputs] == ["label", "score", "probabilities"]
                labels = read_raw_bytes(got.raw_output_contents[0])
                scores = struct.unpack(f"<{len(pairs)}f", got.raw_output_contents[1])
                assert labels == [r["label"] for r in want]
                assert scores == pytest.approx([r["score"] for r in want], abs=1e-6)


def test_grpc_needs_the_key_http_needs(cli, stubs):
    pb, rpc = stubs
    key = "gak-python-grpc-3Hx"
    pairs = read_pairs()[:2]
    with Server(cli, "--model", str(MODEL), "--grpc-port", "0", "--api-key", key) as server:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port(server)}") as channel:
            stub = rpc.GRPCInferenceServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.ModelInfer(infer_request(pb, pairs, raw=False))
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            answer = stub.ModelInfer(infer_request(pb, pairs, raw=False),
                                     metadata=[("authorization", f"Bearer {key}")])
            assert len(read_raw_bytes(answer.raw_output_contents[0])) == 2
            with pytest.raises(grpc.RpcError) as elsewhere:
                stub.ModelInfer(infer_request(pb, pairs, raw=False, model="other"),
                                metadata=[("authorization", f"Bearer {key}")])
            assert elsewhere.value.code() == grpc.StatusCode.NOT_FOUND
        assert key not in server.log()
