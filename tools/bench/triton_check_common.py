"""What tritonclient_check.py (HTTP) and tritonclient_grpc_check.py share: the sample
pairs, a free loopback port, /v1/match's answers to compare with, and the check lines."""
import json
import os
import socket
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = [("北京市朝阳区建国路88号", "北京朝阳建外88号"), ("杭州市文三路478号", "文三路478号华星大厦"),
          ("紫萱路363号人力社保局", "紫萱路363号市人社局"), ("深圳市南山区科技园", "上海市浦东新区世纪大道100号")]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, path, body, key=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def read_pairs(path, limit):
    """addr1<TAB>addr2[<TAB>...] rows, the first `limit`; SAMPLE without a path."""
    if not path:
        return SAMPLE
    with open(path, encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")[:2]) for line in f if line.strip()][:limit]


class Checks:
    """Prints one line per check and counts the failures."""

    def __init__(self):
        self.failures = 0

    def __call__(self, name, ok, detail=""):
        self.failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
