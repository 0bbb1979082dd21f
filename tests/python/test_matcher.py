"""Matcher: scores and embeddings equal the CLI's and server's, input forms, errors, the GIL."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import geoalign
from conftest import FIXTURES, MODEL, read_pairs, run_cli
from serve_process import Server

NUMBERS = ["score", "p_not_match", "p_partial_match", "p_exact_match"]


def cli_scores(cli, pairs, *options):
    """`geoalign score` on pairs: (label, "%.6f" numbers...) per pair."""
    tsv = "".join(f"{a}\t{b}\n" for a, b in pairs)
    out = run_cli(cli, "score", "--model", str(MODEL), *options, "-", stdin=tsv).splitlines()
    assert out[0].split("\t")[2:] == ["label", *NUMBERS]
    return [tuple(line.split("\t")[2:]) for line in out[1:]]


def as_cli(results):
    return [(r.label, *(f"{getattr(r, n):.6f}" for n in NUMBERS)) for r in results]


def test_score_equals_cli(cli, matcher):
    pairs = read_pairs()
    assert as_cli(matcher.score(pairs)) == cli_scores(cli, pairs)


def test_score_in_cli_chunks(cli, matcher):
    # Batches of 2 make a chunk of 64 pairs: 100 pairs cross a chunk boundary, as a large
    # file does at the default batch size.
    pairs = (read_pairs() * 5)[:100]
    assert as_cli(matcher.score(pairs, batch_size=2)) == cli_scores(cli, pairs, "--batch-size", "2")


def test_match_result_fields(matcher):
    (r,) = matcher.score([("北京市朝阳区建国路88号", "北京朝阳建国路88号")])
    assert isinstance(r, geoalign.MatchResult)
    assert list(r.probabilities) == matcher.labels
    assert r.label == max(r.probabilities, key=r.probabilities.get)
    assert r.score == pytest.approx(r.p_exact_match + 0.5 * r.p_partial_match, abs=1e-6)
    assert sum(r.probabilities.values()) == pytest.approx(1.0, abs=1e-5)
    assert matcher.precision in ("fp32", "bf16", "int8")
    assert matcher.score([]) == []


def test_score_frame(cli, matcher):
    pairs = read_pairs()
    frame = pd.DataFrame(pairs, columns=["from", "to"], index=range(100, 100 + len(pairs)))
    scored = matcher.score_frame(frame, "from", "to")
    assert list(scored.columns) == ["from", "to", "label", *NUMBERS]
    assert scored.index.equals(frame.index) and "label" not in frame.columns
    assert all(scored[n].dtype == np.float32 for n in NUMBERS)
    rows = [(r.label, *(f"{getattr(r, n):.6f}" for n in NUMBERS)) for r in scored.itertuples()]
    assert rows == cli_scores(cli, pairs)


def test_score_frame_needs_each_column_once(matcher):
    frame = pd.DataFrame([["北京市朝阳区", "x", "北京朝阳"]], columns=["addr1", "addr1", "addr2"])
    with pytest.raises(ValueError, match="column 'addr1' appears 2 times"):
        matcher.score_frame(frame)
    with pytest.raises(ValueError, match="no column 'to' in the frame"):
        matcher.score_frame(frame, "addr2", "to")


def test_pair_input_forms(matcher):
    pairs = read_pairs()[:4]
    expected = matcher.score(pairs)
    assert matcher.score(np.array(pairs, dtype=object)) == expected
    assert matcher.score(np.array(pairs)) == expected  # numpy str_ items
    assert matcher.score([list(p) for p in pairs]) == expected
    assert matcher.score(p for p in pairs) == expected
    frame = pd.DataFrame(pairs, columns=["a", "b"])
    assert matcher.score(zip(frame["a"], frame["b"])) == expected


@pytest.mark.parametrize(
    "bad, message",
    [
        ([("北京市", "上海市"), None], r"pairs\[1\] is not an \(addr1, addr2\) pair \(got NoneType\)"),
        ([("北京市", "上海市"), ("北京市", None)], r"pairs\[1\]\[1\] is not a str \(got NoneType\)"),
        ([(1, "上海市")], r"pairs\[0\]\[0\] is not a str \(got int\)"),
        ([("北京市", b"bytes")], r"pairs\[0\]\[1\] is not a str \(got bytes\)"),
        ([("北京市", "上海\ud800市")], r"pairs\[0\]\[1\] is not valid UTF-8: .*surrogates not allowed"),
        ([("北京市", "上海市"), ("北京市", "上海市", "杭州市")], r"pairs\[1\] has 3 items, not 2"),
        ([("北京市",)], r"pairs\[0\] has 1 items, not 2"),
        ([("北京市", "上海市"), "ab"], r"pairs\[1\] is not an \(addr1, addr2\) pair \(got str\)"),
        ([("北京市", " ")], r"pairs\[0\]\[1\] is empty"),
        ([("&nbsp;", "北京市")], r"pairs\[0\]\[0\] is empty"),  # markup for a blank, as web exports fill cells
    ],
)
def test_bad_pairs_name_the_row(matcher, bad, message):
    with pytest.raises(ValueError, match=message):
        matcher.score(bad)


def test_bad_collections(matcher):
    with pytest.raises(TypeError, match="not a single str"):
        matcher.embed("北京市")
    with pytest.raises(TypeError):
        matcher.score(42)
    with pytest.raises(ValueError, match="batch_size"):
        matcher.score(read_pairs(), batch_size=0)
    with pytest.raises(ValueError, match=r"addresses\[1\] is not a str \(got float\)"):
        matcher.embed(pd.Series(["北京市", np.nan]))  # a missing value
    with pytest.raises(ValueError, match="pooling"):
        matcher.embed(["北京市"], pooling="max")


def test_engine_errors_are_geoalign_errors(tmp_path):
    assert issubclass(geoalign.GeoalignError, ValueError)
    with pytest.raises(geoalign.GeoalignError, match="does not exist"):
        geoalign.Matcher(tmp_path / "missing")
    with pytest.raises(geoalign.GeoalignError, match="unknown precision"):
        geoalign.Matcher(precision="fp16")
    with pytest.raises(geoalign.GeoalignError, match="unknown device"):
        geoalign.Matcher(device="gpu")
    with pytest.raises(geoalign.GeoalignError, match=r"unknown head \"trees\" \(match, rerank\)"):
        geoalign.Matcher(head="trees")


def test_the_rerank_head_by_name_must_be_in_the_folder(tmp_path):
    folder = tmp_path / "no_rerank_head"
    folder.mkdir()
    for entry in MODEL.iterdir():
        if entry.name != "rerank_head.json":
            (folder / entry.name).symlink_to(entry)
    with pytest.raises(geoalign.GeoalignError, match="rerank_head.json does not exist"):
        geoalign.Matcher(folder, head="rerank")
    assert geoalign.Matcher(folder).score([("杭州市文三路478号", "文三路478号")])[0].label


def test_a_gpu_that_cannot_be_used_is_an_error_not_a_fall_back():
    # The Python package is built without the CUDA backend; a build with it on a machine
    # without a usable GPU refuses the same way, saying why.
    try:
        geoalign.Matcher(device="cuda")
    except geoalign.GeoalignError as e:
        assert "CUDA" in str(e)
    else:
        pytest.skip("this build can use this machine's GPU")


def test_embed_shape_and_inputs(matcher):
    addresses = ["杭州市文三路478号", "北京市朝阳区建国路88号", "上海市浦东新区张江路88号"]
    vectors = matcher.embed(addresses)
    assert vectors.dtype == np.float32 and vectors.shape[0] == 3 and vectors.shape[1] > 0
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)  # the head normalizes
    np.testing.assert_array_equal(matcher.embed(np.array(addresses)), vectors)
    np.testing.assert_array_equal(matcher.embed(pd.Series(addresses)), vectors)
    assert matcher.embed([]).shape == (0, vectors.shape[1])
    assert matcher.embed(addresses, pooling="cls").shape[0] == 3


def test_embed_equals_server(cli, matcher):
    """The CLI has no embed command; `geoalign serve`'s /v1/embed is the CLI's embedding."""
    addresses = [a for pair in read_pairs()[:6] for a in pair]
    with Server(cli, "--model", str(MODEL)) as server:
        status, answer = server.post("/v1/embed", {"addresses": addresses})
    assert status == 200, answer
    served = np.array(answer["embeddings"], dtype=np.float32)
    # The server batches addresses its own way, so the last bits may differ.
    np.testing.assert_allclose(matcher.embed(addresses), served, atol=1e-5)


def test_gil_is_released_while_scoring(matcher):
    """Another Python thread runs while the model scores.

    With a switch interval far longer than the test, Python hands the GIL from thread to
    thread only where one releases it: the counting thread can run while `inside` is set
    only if score released the GIL, however fast or loaded the machine.
    """
    pairs = read_pairs() * 3
    inside = False
    counted_inside = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal counted_inside
        while not stop.is_set():
            if inside:
                counted_inside += 1
            time.sleep(0)  # releases the GIL, so the scoring thread can take it back

    interval = sys.getswitchinterval()
    counter = threading.Thread(target=count)
    sys.setswitchinterval(1000)
    try:
        counter.start()
        inside = True
        matcher.score(pairs)
        inside = False
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        counter.join()
    assert counted_inside > 0


def test_default_model_is_bundled():
    model = geoalign.default_model()
    assert (model / "config.json").is_file() and (model / "parser" / "tagger.bin").is_file()
    assert model.is_relative_to(Path(geoalign.__file__).parent)


def test_thread_defaults_follow_the_cores_this_process_may_use():
    import os

    assert 1 <= geoalign.available_cores() <= len(os.sched_getaffinity(0))
    with pytest.raises(ValueError, match="threads"):
        geoalign.set_threads(-1)
