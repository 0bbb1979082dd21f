"""The playground (GET / of geoalign serve) in headless Chromium, driven over the DevTools protocol.

Each view is used as a person would use it (typing, clicking, Enter) and what it shows is
checked against the API's own answer for the same input. Every page must reach nothing
but its server. Screenshots of the views go to build/test-artifacts/playground/.
"""

from __future__ import annotations


import pytest

from cdp_pipe import Browser, Page, find_chromium
from conftest import FIXTURES, MODEL, ROOT, run_cli
from serve_process import Server

ARTIFACTS = ROOT / "build" / "test-artifacts" / "playground"


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    if chromium is None:
        pytest.fail("chromium is not installed, and the playground tests need it: run scripts/setup.sh "
                    "(or apt-get install chromium), or point GEOALIGN_CHROMIUM at a Chromium", pytrace=False)
    with Browser(chromium) as b:
        yield b


@pytest.fixture(scope="module")
def server(cli, tmp_path_factory):
    """The default model with an index of the fixture addresses: every view is on."""
    index = tmp_path_factory.mktemp("playground") / "index"
    run_cli(cli, "index", "build", "--model", str(MODEL), "--input", str(FIXTURES / "addresses.tsv"), "--out", str(index))
    with Server(cli, "--model", str(MODEL), "--index", str(index)) as s:
        yield s


def open_page(browser: Browser, server: Server, view: str = "", **size) -> Page:
    page = browser.new_page(**size)
    page.navigate(f"{server.origin}/#{view}")
    page.wait_until("document.body.dataset.ready === 'true'")
    return page


@pytest.fixture
def page(browser, server):
    p = open_page(browser, server)
    yield p
    p.close()


def finished(page: Page, out: str) -> str:
    """Waits for a view's answer and returns how it ended: done or error."""
    return page.wait_until(f"['done', 'error'].includes(document.getElementById('{out}').dataset.state)"
                           f" && document.getElementById('{out}').dataset.state")


def shown_error(page: Page, out: str) -> str:
    return page.evaluate(f"document.querySelector('#{out} .error').firstChild.textContent")


def shown_parses(page: Page, out: str) -> list[list[list[str]]]:
    """The elements of each parse a view shows, as [tag, text] in order."""
    return page.evaluate(f"""[...document.querySelectorAll('#{out} .parse')].map((card) =>
        [...card.querySelectorAll('.el')].map((e) => [e.dataset.tag, e.querySelector('.text').textContent]))""")


def elements(parse: dict) -> list[list[str]]:
    return [[e["tag"], e["text"]] for e in parse["elements"]]


def assert_stayed_on(page: Page, server: Server) -> None:
    """Every request went to the server, and nothing broke or was refused on the way."""
    urls = page.requested_urls()
    assert urls, "the page made no requests at all"
    away = [u for u in urls if not u.startswith(server.origin + "/")]
    assert not away, f"the page reached outside {server.origin}: {away}"
    assert page.script_errors() == []


def test_match_shows_the_apis_answer_and_why(page, server):
    a, b = "杭州市西湖区文三路478号华星科技大厦A座", "文三路478号华星大厦"
    page.type("#addr1", a)
    page.type("#addr2", b)
    page.click("#match-form button")
    assert finished(page, "match-out") == "done"

    status, answer = server.post("/v1/match", {"pairs": [[a, b]]})
    assert status == 200
    want = answer["results"][0]
    assert page.evaluate("document.getElementById('match-label').dataset.label") == want["label"]
    shown = page.evaluate("[...document.querySelectorAll('#match-out .bars .num')].map((n) => n.textContent)")
    assert shown == [f"{want['probabilities'][k]:.3f}" for k in ("not_match", "partial_match", "exact_match")]

    _, parses = server.post("/v1/parse", {"addresses": [a, b]})
    assert shown_parses(page, "match-out") == [elements(p) for p in parses["results"]]
    _, explained = server.post("/v1/match", {"pairs": [[a, b]], "explain": True})
    features = explained["results"][0]["explanation"]["features"]
    shown_features = page.evaluate("[...document.querySelectorAll('#features tbody tr')].map((r) => r.cells[0].textContent)")
    assert [name.split(" ")[0] for name in shown_features] == [f["name"] for f in features]
    assert float(page.evaluate("document.getElementById('match-out').dataset.ms")) > 0
    page.screenshot(ARTIFACTS / "match.png")
    assert_stayed_on(page, server)


def test_enter_submits_and_errors_show_the_servers_message(page, server):
    page.type("#addr1", "北京市朝阳区建国路88号")
    page.type("#addr2", "   ")
    page.press("Enter", 13)
    assert finished(page, "match-out") == "error"
    status, answer = server.post("/v1/match", {"pairs": [["北京市朝阳区建国路88号", "   "]], "explain": True})
    assert status == 422
    assert shown_error(page, "match-out") == answer["error"] == "pairs[0][1] is empty"

    # More addresses than the server takes in one request: its 413 message, word for word.
    page.click("#tab-parse")
    page.evaluate("document.getElementById('parse-input').value = Array(1100).fill('杭州').join('\\n')")
    page.click("#parse-form button")
    assert finished(page, "parse-out") == "error"
    status, answer = server.post("/v1/parse", {"addresses": ["杭州"] * 1100})
    assert status == 413
    assert shown_error(page, "parse-out") == answer["error"]
    assert_stayed_on(page, server)


def test_parse_shows_elements_admin_chains_and_ambiguity(page, server):
    # A plain one, an ambiguous one, a former district, a contradicted district.
    addresses = ["杭州市西湖区文三路478号华星科技大厦", "朝阳区建国路88号", "杭州市江干区九堡镇",
                 "江苏省南京市鼓楼区瑞金路街道瑞金路2号"]
    page.click("#tab-parse")
    assert page.evaluate("document.activeElement.id") == "parse-input"
    page.type("#parse-input", "\n".join(addresses))
    page.press("Enter", 13)  # a new line, not a submission
    page.click("#parse-form button")
    assert finished(page, "parse-out") == "done"

    _, answer = server.post("/v1/parse", {"addresses": addresses})
    assert shown_parses(page, "parse-out") == [elements(p) for p in answer["results"]]
    codes = page.evaluate("[...document.querySelectorAll('#parse-out .parse')].map((c) => c.querySelector('.admin .code')?.textContent ?? null)")
    assert codes == [p["admin"]["adcode"] for p in answer["results"]]
    ambiguous = answer["results"][1]["admin"]
    assert ambiguous["ambiguous"]
    shown_candidates = page.evaluate("[...document.querySelectorAll('#parse-out .parse')[1].querySelectorAll('.candidates li')].map((li) => li.textContent)")
    assert shown_candidates == ambiguous["candidates"]
    notes = page.evaluate("""[...document.querySelectorAll('#parse-out .parse')].map((c) => [
        [...c.querySelectorAll('.historical')].map((n) => n.textContent),
        [...c.querySelectorAll('.conflicting span')].map((n) => n.textContent)])""")
    assert notes[0] == [[], []]
    assert notes[1] == [[], []]
    historical = answer["results"][2]["admin"]["historical"]
    former = historical["district"]
    assert len(notes[2][0]) == len(historical) == 1 and former["name"] in notes[2][0][0]
    assert former["now"] and all(now in notes[2][0][0] for now in former["now"])
    assert notes[2][1] == [] and notes[3][0] == []
    assert notes[3][1] == [e["text"] for e in answer["results"][3]["admin"]["conflicting"]] == ["鼓楼区"]
    page.screenshot(ARTIFACTS / "parse.png")
    assert_stayed_on(page, server)


def test_search_shows_the_top_results(page, server):
    query = "北京朝阳建国路88号"
    page.click("#tab-search")
    page.type("#query", query)
    page.press("Enter", 13)
    assert finished(page, "search-out") == "done"
    _, answer = server.post("/v1/search", {"queries": [query], "k": 10})
    hits = answer["results"][0]["results"]
    shown = page.evaluate("[...document.querySelectorAll('#hits tbody tr')].map((r) => [r.cells[1].textContent, r.cells[3].textContent])")
    assert shown == [[h["id"], f"{h['score']:.3f}"] for h in hits]
    page.screenshot(ARTIFACTS / "search.png")
    assert_stayed_on(page, server)


def test_readable_on_a_phone(browser, server):
    page = open_page(browser, server, width=390, height=844, mobile=True)
    try:
        assert page.evaluate("document.querySelector('meta[name=viewport]').content").startswith("width=device-width")
        page.type("#addr1", "深圳市南山区科技园Ｂ栋３０１")
        page.type("#addr2", "深圳南山科技园B栋301室")
        page.press("Enter", 13)
        assert finished(page, "match-out") == "done"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
        page.screenshot(ARTIFACTS / "match-phone.png")
        assert_stayed_on(page, server)
    finally:
        page.close()


def test_a_model_without_a_head_matches_and_says_what_it_cannot_do(browser, cli):
    """The tiny fixture model: no match head (so no explanation) and no index; it parses
    with the bundled parser, and without that parser /v1/parse is a 404 the page shows."""
    with Server(cli, "--model", str(ROOT / "tests" / "fixtures" / "tiny_bert")) as plain:
        page = open_page(browser, plain, view="search")
        try:
            assert page.evaluate("document.getElementById('tab-search').hidden")
            assert page.evaluate("location.hash") == "#match"
            page.type("#addr1", "杭州市文三路478号")
            page.type("#addr2", "文三路478号")
            page.press("Enter", 13)
            assert finished(page, "match-out") == "done"
            _, answer = plain.post("/v1/match", {"pairs": [["杭州市文三路478号", "文三路478号"]]})
            assert page.evaluate("document.getElementById('match-label').dataset.label") == answer["results"][0]["label"]
            assert "no match head" in page.evaluate("document.getElementById('match-out').textContent")

            page.click("#tab-parse")
            page.type("#parse-input", "杭州市文三路478号")
            page.click("#parse-form button")
            assert finished(page, "parse-out") == "done"
            status, answer = plain.post("/v1/parse", {"addresses": ["杭州市文三路478号"]})
            assert status == 200 and answer["results"][0]["admin"]["city"] == "杭州市"
            assert_stayed_on(page, plain)
        finally:
            page.close()
