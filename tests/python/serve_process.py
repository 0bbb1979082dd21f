"""geoalign serve as a child process on 127.0.0.1 and a free port, for tests and measurements."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


class Server:
    """Starts `geoalign serve ARGS --port 0` and waits until it is ready; close() stops it."""

    def __init__(self, cli: Path, *args: str, timeout: float = 120.0) -> None:
        # stderr goes to a file: a pipe nobody reads could fill and stall the server.
        self._log = tempfile.TemporaryFile()
        self._process = subprocess.Popen([str(cli), "serve", "--host", "127.0.0.1", "--port", "0", *args],
                                         stdout=subprocess.DEVNULL, stderr=self._log)
        deadline = time.monotonic() + timeout
        port = self._wait(deadline, lambda: re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.log()))
        self.origin = f"http://127.0.0.1:{port.group(1)}"
        self._wait(deadline, lambda: self.get("/v2/health/ready")[0] == 200)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()  # SIGTERM: the server drains and exits
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._log.close()

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def get(self, path: str) -> tuple[int, bytes]:
        return self._request(urllib.request.Request(self.origin + path))

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """POSTs JSON; returns the status and the decoded answer, error answers included."""
        request = urllib.request.Request(self.origin + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        status, data = self._request(request)
        return status, json.loads(data)

    def _request(self, request: urllib.request.Request) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def _wait(self, deadline: float, condition):  # type: ignore[no-untyped-def]
        while True:
            if self._process.poll() is not None:
                raise RuntimeError(f"geoalign serve exited {self._process.returncode}:\n{self.log()}")
            try:
                if result := condition():
                    return result
            except OSError:  # not listening yet
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"geoalign serve not ready in time:\n{self.log()}")
            time.sleep(0.05)
