"""Headless Chromium driven over the Chrome DevTools Protocol on a pipe, with the standard library only.

Started with --remote-debugging-pipe, Chromium reads commands on its file descriptor 3
and writes answers and events on 4, each message one JSON object ended by a NUL byte.
A command carries an id and its answer the same id; everything else is an event, kept
in arrival order for whoever asks. Pages are attached in flat mode: a page's commands
and events carry its sessionId on the one pipe.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


class CdpError(RuntimeError):
    """A command the browser refused, a script that threw, or a browser that went away."""


def find_chromium() -> str | None:
    """GEOALIGN_CHROMIUM, else chromium on PATH (Debian's package), else None."""
    return os.environ.get("GEOALIGN_CHROMIUM") or shutil.which("chromium")


class Browser:
    """One headless Chromium with its own throw-away profile, until close()."""

    def __init__(self, executable: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="geoalign-chromium-")
        self._log = tempfile.TemporaryFile()
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        args = [executable, "--headless=new", "--remote-debugging-pipe", f"--user-data-dir={self._profile.name}",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium will not start its sandbox as root
        # The shell puts the pipe ends on descriptors 3 and 4, where Chromium looks for
        # them (subprocess keeps descriptor numbers but cannot choose them), then execs it.
        self._process = subprocess.Popen(
            ["/bin/sh", "-c", 'exec "$@" 3<&0 4>&1 0</dev/null 1>&2', "sh", *args, "about:blank"],
            stdin=commands_read, stdout=answers_write, stderr=self._log)
        os.close(commands_read)
        os.close(answers_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self.send("Browser.close", timeout=5)
            except (CdpError, TimeoutError, OSError):
                pass
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for fd in (self._commands, self._answers):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        self._profile.cleanup()

    def log(self) -> str:
        """What Chromium wrote to stderr so far, for failure messages."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        """Runs one command and returns its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._commands, data):]
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            answer = self._read(deadline)
            if answer.get("id") != self._next_id:
                self.events.append(answer)
                continue
            if "error" in answer:
                raise CdpError(f"{method}: {answer['error'].get('message')} {answer['error'].get('data', '')}")
            return answer.get("result", {})

    def wait_for_event(self, method: str, session: str | None, timeout: float | None = None) -> dict[str, Any]:
        """Takes the first event `method` of the session, waiting for it if none came yet."""
        deadline = time.monotonic() + (timeout or self.timeout)
        seen = 0
        while True:
            for i in range(seen, len(self.events)):
                event = self.events[i]
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            seen = len(self.events)
            self.events.append(self._read(deadline))

    def pump(self) -> None:
        """Reads every message already sent, without waiting."""
        while b"\0" in self._buffer or select.select([self._answers], [], [], 0)[0]:
            self.events.append(self._read(time.monotonic() + self.timeout))

    def new_page(self, width: int = 1000, height: int = 800, mobile: bool = False) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        for domain in ("Page", "Runtime", "Network", "Log"):
            page.send(f"{domain}.enable")
        page.resize(width, height, mobile)
        return page

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no message from chromium in time; its log:\n{self.log()}")
            if not select.select([self._answers], [], [], remaining)[0]:
                continue
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise CdpError(f"chromium closed its pipe (exit {self._process.poll()}); its log:\n{self.log()}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)


class Page:
    """One tab: navigation, script, real input events, screenshots and the URLs it requested."""

    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})

    def resize(self, width: int, height: int, mobile: bool = False) -> None:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)

    def navigate(self, url: str) -> None:
        answer = self.send("Page.navigate", url=url)
        if answer.get("errorText"):
            raise CdpError(f"cannot open {url}: {answer['errorText']}")
        self.browser.wait_for_event("Page.loadEventFired", self.session)

    def evaluate(self, expression: str) -> Any:
        """The value of a script expression (awaited when it is a promise)."""
        answer = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise CdpError(f"{expression!r} threw: {details.get('exception', {}).get('description', details.get('text'))}")
        return answer["result"].get("value")

    def wait_until(self, expression: str, timeout: float | None = None) -> Any:
        """Polls a script expression until it is truthy and returns its value."""
        deadline = time.monotonic() + (timeout or self.browser.timeout)
        while not (value := self.evaluate(expression)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} still false after {timeout or self.browser.timeout} s")
            time.sleep(0.02)
        return value

    def type(self, selector: str, text: str) -> None:
        """Focuses an element and types into it, as a keyboard would (input events included)."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", text=text)

    def press(self, key: str, code: int) -> None:
        """Presses and releases a key: press('Enter', 13)."""
        text = "\r" if key == "Enter" else ""
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code,
                      nativeVirtualKeyCode=code, text=text if kind == "keyDown" else "")

    def click(self, selector: str) -> None:
        """A left click in the middle of the element, through the input pipeline."""
        box = self.evaluate(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: 'center'}});
            const r = e.getBoundingClientRect();
            return {{x: r.x + r.width / 2, y: r.y + r.height / 2}};
        }})()""")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)

    def screenshot(self, path: Path) -> None:
        """A PNG of the whole page, however long."""
        size = self.evaluate("({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})")
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["w"], "height": size["h"], "scale": 1})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def script_errors(self) -> list[str]:
        """Uncaught exceptions, and errors the browser logged other than failed requests
        (a refused load or a policy violation is one)."""
        self.browser.pump()
        errors = []
        for e in self.browser.events:
            if e.get("sessionId") != self.session:
                continue
            if e.get("method") == "Runtime.exceptionThrown":
                details = e["params"]["exceptionDetails"]
                errors.append(details.get("exception", {}).get("description", details.get("text", "")))
            elif e.get("method") == "Log.entryAdded":
                entry = e["params"]["entry"]
                if entry["level"] == "error" and entry.get("source") != "network":
                    errors.append(f"{entry.get('source')}: {entry.get('text')}")
        return errors

    def requested_urls(self) -> list[str]:
        """Every URL this page has asked the network for since it opened."""
        self.browser.pump()
        return [e["params"]["request"]["url"] for e in self.browser.events
                if e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == self.session]
