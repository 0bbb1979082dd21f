"""Click to answer in the playground's Match view, measured inside the browser.

    /usr/bin/python3 tools/bench/playground_latency.py [--model models/default] [--clicks 20]

Starts build/release/geoalign serve with the model, opens its page in headless Chromium
(the test helpers of tests/python: cdp_pipe, serve_process) and clicks Match for one
pair again and again. The page times each click with performance.now(), from sending
/v1/match (with "explain") to the answer drawn, and keeps it in data-ms; this prints the
median, with the page's size in bytes. One warm-up click is not counted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))

from cdp_pipe import Browser, find_chromium  # noqa: E402
from serve_process import Server  # noqa: E402

PAIR = ("杭州市西湖区文三路478号华星科技大厦A座", "文三路478号华星大厦")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(ROOT / "models" / "default"))
    parser.add_argument("--cli", default=str(ROOT / "build" / "release" / "geoalign"))
    parser.add_argument("--clicks", type=int, default=20)
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install chromium)")

    with Server(Path(args.cli), "--model", args.model) as server, Browser(chromium) as browser:
        status, page_bytes = server.get("/")
        page = browser.new_page()
        page.navigate(server.origin + "/")
        page.wait_until("document.body.dataset.ready === 'true'")
        page.type("#addr1", PAIR[0])
        page.type("#addr2", PAIR[1])
        times = []
        for click in range(args.clicks + 1):
            page.evaluate("delete document.getElementById('match-out').dataset.state")
            page.click("#match-form button")
            state = page.wait_until("['done', 'error'].includes(document.getElementById('match-out').dataset.state)"
                                    " && document.getElementById('match-out').dataset.state")
            if state != "done":
                sys.exit("the page showed an error: " + page.evaluate("document.getElementById('match-out').textContent"))
            if click > 0:
                times.append(float(page.evaluate("document.getElementById('match-out').dataset.ms")))
    print(f"page: {len(page_bytes)} bytes (HTTP {status})")
    print("each click, ms:", " ".join(f"{t:.1f}" for t in times))
    print(f"click to answer over {len(times)} clicks: median {statistics.median(times):.1f} ms, "
          f"min {min(times):.1f}, max {max(times):.1f}")


if __name__ == "__main__":
    main()
