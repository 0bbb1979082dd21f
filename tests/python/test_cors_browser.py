"""A page on another origin calls geoalign serve from headless Chromium: with --cors-allow-origin
naming the page's origin it reads the answer (an API key sent as a header, through the
browser's preflight); without it, the browser keeps the answer from the page.
"""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request

import pytest

from cdp_pipe import Browser, find_chromium
from conftest import MODEL
from serve_process import Server

KEY = "gak-browser-test-key"
PAIR = ["杭州市西湖区文三路90号", "杭州西湖区文三路九十号"]
PAGE = b"<!doctype html><meta charset=utf-8><title>another origin</title><p>a page elsewhere</p>"


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def page_origin():
    """A page served from another port of 127.0.0.1: another origin than the server's."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    if chromium is None:
        pytest.fail("chromium is not installed: run scripts/setup.sh (or apt-get install chromium)", pytrace=False)
    with Browser(chromium) as b:
        yield b


def fetch_from_page(browser: Browser, page_origin: str, api: str, key: str) -> dict:
    """POST /v1/match from a script of the page on page_origin; what the script could read."""
    page = browser.new_page()
    try:
        page.navigate(page_origin + "/")
        page.wait_until("document.readyState === 'complete'")
        body = json.dumps({"pairs": [PAIR]})
        return page.evaluate(f"""fetch({json.dumps(api + '/v1/match')}, {{
              method: 'POST',
              headers: {{'Content-Type': 'application/json', 'Authorization': {json.dumps('Bearer ' + key)}}},
              body: {json.dumps(body)}}})
            .then(async (r) => ({{read: true, status: r.status, answer: await r.json()}}))
            .catch((e) => ({{read: false, error: String(e)}}))""")
    finally:
        page.close()


def direct_label(server: Server) -> str:
    request = urllib.request.Request(server.origin + "/v1/match", data=json.dumps({"pairs": [PAIR]}).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["results"][0]["label"]


def test_an_allowed_origin_reads_the_answer_and_a_wrong_key_gets_401(cli, browser, page_origin):
    with Server(cli, "--model", str(MODEL), "--api-key", KEY, "--cors-allow-origin", page_origin) as server:
        got = fetch_from_page(browser, page_origin, server.origin, KEY)
        assert got["read"], got
        assert got["status"] == 200
        assert got["answer"]["results"][0]["label"] == direct_label(server)
        wrong = fetch_from_page(browser, page_origin, server.origin, "not-the-key")
        assert wrong["read"] and wrong["status"] == 401, wrong
        assert wrong["answer"]["type"] == "unauthorized"
        assert KEY not in server.log()


def test_without_the_origin_allowed_the_browser_refuses(cli, browser, page_origin):
    with Server(cli, "--model", str(MODEL), "--api-key", KEY) as server:
        got = fetch_from_page(browser, page_origin, server.origin, KEY)
        assert not got["read"], got
        assert "Failed to fetch" in got["error"]
    with Server(cli, "--model", str(MODEL), "--cors-allow-origin", "http://127.0.0.1:1") as server:
        got = fetch_from_page(browser, page_origin, server.origin, KEY)
        assert not got["read"], got
