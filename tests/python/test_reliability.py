"""What a new user's first day with the package found, each against an independent truth:
answers against the PyTorch reference and hand-labelled places, a worker's error reaching
the caller, forking after loading, thread counts, pickling, and caps on input."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from multiprocessing import get_context

import numpy as np
import pandas as pd
import pytest

import geoalign
from conftest import ROOT, read_pairs

TINY_BERT = ROOT / "tests" / "fixtures" / "tiny_bert"
GOLDEN = json.loads((ROOT / "tests" / "golden" / "tiny_bert_outputs.json").read_text(encoding="utf-8"))


# --- answers against independent truths ---------------------------------------------------


def test_scores_and_embeddings_equal_the_pytorch_reference():
    """tools/reference/make_fixture.py ran the fixture model in PyTorch: the package's numbers are its."""
    matcher = geoalign.Matcher(TINY_BERT, precision="fp32")
    # The reference also ran empty addresses, which the package refuses as bad input.
    kept = [i for i, (a, b) in enumerate(GOLDEN["pairs"]) if a.strip() and b.strip()]
    results = matcher.score([tuple(GOLDEN["pairs"][i]) for i in kept], batch_size=4)
    assert len(results) > 10
    for r, i in zip(results, kept):
        want = GOLDEN["probabilities"][i]
        assert [r.p_not_match, r.p_partial_match, r.p_exact_match] == pytest.approx(want, abs=1e-5)
        assert r.label == matcher.labels[int(np.argmax(want))]
    kept = [i for i, a in enumerate(GOLDEN["addresses"]) if a.strip()]
    for pooling in ("mean", "cls"):
        np.testing.assert_allclose(matcher.embed([GOLDEN["addresses"][i] for i in kept], pooling=pooling, batch_size=5),
                                   np.array([GOLDEN[f"{pooling}_embeddings"][i] for i in kept], dtype=np.float32),
                                   atol=1e-4)


# One place written three ways, one written twice, and two others: which rows are one place
# is known, not taken from another front end.
PLACES = [
    ("hz", "杭州市西湖区文三路478号华星科技大厦"), ("hz", "文三路478号华星大厦"), ("hz", "杭州市西湖区文三路478号华星科技大厦"),
    ("bj", "北京市海淀区中关村大街27号"), ("bj", "\u200b北京市 海淀区中关村大街27号"),
    ("tm", "杭州市西湖区天目山路100号"), ("sh", "上海市浦东新区世纪大道100号"),
]


def test_dedup_clusters_hand_labelled_places():
    frame = geoalign.dedup([a for _, a in PLACES])
    for i, (place_i, _) in enumerate(PLACES):
        for j, (place_j, _) in enumerate(PLACES):
            same = frame["cluster_id"].iloc[i] == frame["cluster_id"].iloc[j]
            assert same == (place_i == place_j), (PLACES[i], PLACES[j])


RECORDS = [("hz", "杭州市西湖区文三路478号华星科技大厦"), ("tm", "杭州市西湖区天目山路100号"),
           ("sh", "上海市浦东新区世纪大道100号"), ("bj", "北京市海淀区中关村大街27号")]


def test_search_finds_the_record_of_each_place():
    index = geoalign.Index.build([a for _, a in RECORDS], ids=[i for i, _ in RECORDS])
    hits = index.search(["文三路478号华星大厦", "北京海淀中关村大街27号", "浦东世纪大道100号"], k=1)
    assert [h[0]["id"] for h in hits] == ["hz", "bj", "sh"]


# --- a worker thread's error reaches the caller --------------------------------------------


def test_a_head_that_cannot_score_is_an_error_not_a_dead_interpreter(encoder_reading_rerank_head):
    # In a child interpreter: were the process to die, this test reports it instead of dying too.
    code = ("import geoalign\n"
            "try:\n"
            f"    geoalign.dedup(['杭州市文三路478号', '文三路478号'], model={str(encoder_reading_rerank_head)!r})\n"
            "except geoalign.GeoalignError as e:\n"
            "    print('refused:', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout and "reads the encoder's probabilities" in done.stdout, done.stdout


# --- forking after loading ---------------------------------------------------------------


def _score_in_child(pairs):
    return [r.label for r in _FORKED_MATCHER.score(pairs)]


_FORKED_MATCHER: geoalign.Matcher | None = None


def test_a_process_forked_after_loading_scores(matcher):
    """A child forked after the parent scored waited in libgomp for workers it does not have."""
    pairs = read_pairs()[:20]
    want = [r.label for r in matcher.score(pairs)]
    pid = os.fork()
    if pid == 0:  # the child: a hang ends at the alarm
        signal.alarm(120)
        try:
            os._exit(0 if [r.label for r in matcher.score(pairs)] == want else 3)
        except BaseException:
            os._exit(4)
    deadline = time.monotonic() + 150
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            pytest.fail("the forked child hung")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
    # multiprocessing's default start method on Linux, as a pool of workers.
    global _FORKED_MATCHER
    _FORKED_MATCHER = matcher
    with get_context("fork").Pool(2) as pool:
        got = pool.map_async(_score_in_child, [pairs[:10], pairs[10:]]).get(timeout=150)
    assert got[0] + got[1] == want
    assert [r.label for r in matcher.score(pairs)] == want  # and the parent goes on


# --- threads -----------------------------------------------------------------------------


def test_thread_counts_are_capped_and_kept():
    before = geoalign.threads()
    try:
        for bad in (100000, -1, 1025):
            with pytest.raises(ValueError, match="threads must be"):
                geoalign.set_threads(bad)
            with pytest.raises(ValueError, match="threads must be"):
                geoalign.Matcher(threads=bad)
        geoalign.set_threads(1)
        geoalign.Matcher()  # threads=0: the process's count stands
        assert geoalign.threads() == 1
        geoalign.Matcher(threads=2)
        assert geoalign.threads() == 2
    finally:
        geoalign.set_threads(before)


# --- pickling ----------------------------------------------------------------------------


def test_matcher_parser_and_saved_index_pickle_as_their_folders(matcher, tmp_path):
    pairs = read_pairs()[:8]
    again = pickle.loads(pickle.dumps(matcher))
    assert again.score(pairs) == matcher.score(pairs)
    parser = geoalign.Parser(guess=False)
    assert pickle.loads(pickle.dumps(parser)).parse("北京朝阳建国路88号") == parser.parse("北京朝阳建国路88号")
    index = geoalign.Index.build([a for _, a in RECORDS], path=tmp_path / "ix")
    assert pickle.loads(pickle.dumps(index)).search(["文三路478号"]) == index.search(["文三路478号"])
    index.add(["北京市朝阳区建国路88号"])
    with pytest.raises(TypeError, match="save"):
        pickle.dumps(index)
    index.save()
    assert len(pickle.loads(pickle.dumps(index))) == 5
    with pytest.raises(TypeError, match="save"):
        pickle.dumps(geoalign.Index.build(["北京市"]))  # never saved: no folder to rebuild from


# --- caps and clear errors -----------------------------------------------------------------


def test_parse_refuses_a_text_past_its_cap():
    parser = geoalign.Parser()
    assert parser.parse("文三路478号" * 100)["elements"]
    with pytest.raises(geoalign.GeoalignError, match="65537 characters long; the parser reads at most 65536"):
        parser.parse("路" * (geoalign.parser.MAX_CHARS + 1))


@pytest.mark.parametrize("batch_size", [0, -1, 2.5, "64"])
def test_bad_batch_sizes_are_value_errors(matcher, batch_size):
    with pytest.raises(ValueError, match="batch_size must be a whole number of at least 1"):
        matcher.score(read_pairs()[:2], batch_size=batch_size)
    with pytest.raises(ValueError, match="batch_size must be a whole number of at least 1"):
        matcher.embed(["北京市"], batch_size=batch_size)
    with pytest.raises(ValueError, match="batch_size must be a whole number of at least 1"):
        matcher.score_frame(pd.DataFrame({"addr1": ["北京"], "addr2": ["上海"]}), batch_size=batch_size)


def test_score_frame_names_a_bad_cell_by_index_label_and_column(matcher):
    frame = pd.DataFrame({"addr1": ["北京市朝阳区", "杭州市", "上海市"], "addr2": ["北京朝阳", None, "  "]},
                         index=["r1", "r7", "r9"])
    with pytest.raises(ValueError, match=r"row 'r7', column addr2: not a str \(got NoneType\)"):
        matcher.score_frame(frame)
    with pytest.raises(ValueError, match=r"row 'r9', column addr2: empty address"):
        matcher.score_frame(frame.loc[["r1", "r9"]])


def test_dedup_table_refuses_arrays_that_disagree():
    table = geoalign._geoalign.dedup_table
    ok = table(np.array([0, 1], np.uint32), np.array([0, 0], np.uint32), np.array([1, 0], np.int64),
               np.array([0.9, 0.9], np.float32))
    assert list(ok["cluster_row"]) == [0, 0]
    with pytest.raises(geoalign.GeoalignError, match="address 1 is in cluster 9"):
        table(np.array([0, 1], np.uint32), np.array([0, 9], np.uint32), np.array([1, 0], np.int64),
              np.array([0.9, 0.9], np.float32))
    with pytest.raises(geoalign.GeoalignError, match="best match 5 is not an address"):
        table(np.array([0, 1], np.uint32), np.array([0, 0], np.uint32), np.array([1, 5], np.int64),
              np.array([0.9, 0.9], np.float32))
    with pytest.raises(geoalign.GeoalignError, match="2 best matches and 1 best links"):
        table(np.array([0, 1], np.uint32), np.array([0, 0], np.uint32), np.array([1, 0], np.int64),
              np.array([0.9], np.float32))


def test_the_package_waits_for_work_without_spinning_unless_told():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    code = "import os, geoalign; print(os.environ.get('OMP_WAIT_POLICY'))"
    assert subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd="/").stdout.strip() == "passive"
    env["OMP_WAIT_POLICY"] = "active"
    assert subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd="/").stdout.strip() == "active"
