"""geoalign.dask on a LocalCluster of two worker processes, against the CLI on the same rows."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import geoalign  # noqa: E402
import geoalign.dask as gdask  # noqa: E402
import geoalign._sharded_dedup as sharded  # noqa: E402

from conftest import FIXTURES, MODEL, ROOT, run_cli  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def grown(tmp_path_factory) -> pd.DataFrame:
    """400 synthetic addresses, a third of the places written two or three ways."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "grow_addresses.py"), "400", "--seed", "3"],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    return pd.DataFrame(rows, columns=["id", "address"])


def cli_table(cli, path) -> pd.DataFrame:
    out = run_cli(cli, "dedup", "--model", str(MODEL), "--input", str(path))
    lines = [line.split("\t") for line in out.splitlines()]
    frame = pd.DataFrame(lines[1:], columns=lines[0])
    frame["cluster_size"] = frame["cluster_size"].astype(int)
    frame["best_match_score"] = pd.to_numeric(frame["best_match_score"])  # empty: no match, NaN
    frame["best_match_id"] = frame["best_match_id"].replace("", None)
    return frame


def test_score_gives_the_clis_labels_and_loads_the_model_once_per_worker(client, cli, tmp_path):
    pairs = pd.read_csv(ROOT / "examples" / "bench_pairs.tsv", sep="\t", usecols=[0, 1]).head(400)
    path = tmp_path / "pairs.tsv"
    pairs.to_csv(path, sep="\t", header=False, index=False)
    expected = pd.read_csv(pd.io.common.StringIO(run_cli(cli, "score", "--model", str(MODEL), str(path))), sep="\t")

    got = gdask.score(dd.from_pandas(pairs, npartitions=8), model=MODEL).compute()
    assert list(got.index) == list(pairs.index)
    assert list(got["label"]) == list(expected["label"])
    for c in ("p_not_match", "p_partial_match", "p_exact_match", "score"):
        np.testing.assert_allclose(got[c].to_numpy(), expected[c].to_numpy(), atol=2e-6)
    # Eight partitions over two workers: one model per worker process, not per task.
    loads = client.run(lambda: __import__("geoalign.dask").dask.loads)
    assert sorted(loads.values()) == [1, 1], loads


def test_score_names_a_bad_row_or_reports_it(client, cli):
    pairs = pd.DataFrame({"addr1": ["北京市朝阳区建国路88号", None, "杭州市文三路478号"],
                          "addr2": ["北京朝阳建国路88号", "上海市", "  "]}, index=[10, 11, 12])
    ddf = dd.from_pandas(pairs, npartitions=2)
    with pytest.raises(ValueError, match=r"row 11, column addr1: not a str \(got NoneType\)"):
        gdask.score(dd.from_pandas(pairs.head(2), npartitions=2), model=MODEL).compute()
    got = gdask.score(ddf, model=MODEL, on_error="skip").compute()
    assert len(got) == 3
    assert got["error"].tolist() == [None, "addr1: not a str (got NoneType)", "addr2: empty address"]
    # Blank as the engine reads it: a zero-width space is no address either.
    invisible = pairs.assign(addr2=["北京朝阳建国路88号", "\u200b", "\ufeff "])
    skipped = gdask.score(dd.from_pandas(invisible, npartitions=1), model=MODEL, on_error="skip").compute()
    assert skipped["error"].tolist()[2] == "addr2: empty address"
    with pytest.raises(ValueError, match=r"row 12, column addr2: empty address"):
        gdask.score(dd.from_pandas(invisible.iloc[[0, 2]], npartitions=1), model=MODEL).compute()
    # The good row gets what the CLI gives it; the bad ones nothing.
    expected = run_cli(cli, "score", "--model", str(MODEL), "-", stdin="北京市朝阳区建国路88号\t北京朝阳建国路88号\n")
    label, score = expected.splitlines()[1].split("\t")[2:4]
    assert got["label"].iloc[0] == label
    assert got["score"].iloc[0] == pytest.approx(float(score), abs=2e-6)
    assert got["label"].iloc[1:].isna().all() and got["score"].iloc[1:].isna().all()


@pytest.mark.parametrize("npartitions", [1, 5])
def test_dedup_gives_the_clis_clusters(client, cli, grown, tmp_path, npartitions):
    path = tmp_path / "addresses.tsv"
    grown.to_csv(path, sep="\t", header=False, index=False)
    expected = cli_table(cli, path)

    got = gdask.dedup(dd.from_pandas(grown, npartitions=npartitions), "address", id_column="id", model=MODEL).compute()
    assert list(got["id"]) == list(expected["id"])
    for c in ("cluster_id", "cluster_size", "best_match_id"):
        assert got[c].tolist() == expected[c].tolist(), c
    np.testing.assert_allclose(got["best_match_score"].astype(float), expected["best_match_score"], atol=1e-6)
    # Without an id column, rows are named by their index labels.
    by_index = gdask.dedup(dd.from_pandas(grown.set_index("id"), npartitions=npartitions, sort=False), "address",
                           model=MODEL).compute()
    assert by_index["cluster_id"].tolist() == expected["cluster_id"].tolist()
    assert expected["cluster_size"].max() > 1  # the file has places written several ways


def test_dedup_bad_rows_fail_naming_the_row_or_are_reported(client, cli, tmp_path):
    frame = pd.DataFrame({"id": ["a", "b", "c", "a", "d"],
                          "address": ["杭州市文三路478号华星大厦", None, "文三路478号华星科技大厦", "北京市海淀区", "\u200b \u3000"]})
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=r'row 1 \(id "b"\): not a str'):
        gdask.dedup(dd.from_pandas(frame.head(3), npartitions=2), id_column="id", model=MODEL).compute()
    with pytest.raises(ValueError, match=r'id "a" already used'):
        gdask.dedup(dd.from_pandas(frame.iloc[[0, 2, 3]], npartitions=2), id_column="id", model=MODEL).compute()
    # Ids that are no ids are bad rows, named; index labels that repeat fail the job.
    with pytest.raises(ValueError, match=r"row 1 \(id \"nan\"\): id is not a str or int \(got float\)"):
        gdask.dedup(dd.from_pandas(pd.DataFrame({"id": ["a", np.nan], "address": ["杭州市文三路478号", "北京市海淀区"]}),
                                   npartitions=1), id_column="id", model=MODEL).compute()
    restarted = dd.concat([dd.from_pandas(frame.iloc[[0]].reset_index(drop=True), npartitions=1),
                           dd.from_pandas(frame.iloc[[2]].reset_index(drop=True), npartitions=1)])
    for on_error in ("fail", "skip"):
        with pytest.raises(ValueError, match=r"index label '0' repeats partition 0, row 0's.*pass id_column"):
            gdask.dedup(restarted, model=MODEL, on_error=on_error).compute()
    got = gdask.dedup(ddf, id_column="id", model=MODEL, on_error="skip").compute()
    assert len(got) == 5  # nothing dropped
    errors = got["error"].tolist()
    assert errors[0] is None and errors[2] is None
    assert errors[1] == "not a str (got NoneType)"
    assert "already used" in errors[3]
    assert errors[4] == "empty address"  # a zero-width space and an ideographic space: blank to the engine
    assert got["cluster_id"].iloc[[1, 3, 4]].isna().all()
    # The good rows get what the CLI gives for them alone.
    path = tmp_path / "good.tsv"
    path.write_text("a\t杭州市文三路478号华星大厦\nc\t文三路478号华星科技大厦\n", encoding="utf-8")
    expected = cli_table(cli, path)
    assert got["cluster_id"].iloc[[0, 2]].tolist() == expected["cluster_id"].tolist()


def test_a_head_that_cannot_score_is_an_error_not_a_dead_worker(client, encoder_reading_rerank_head):
    """A rerank head that reads the encoder threw inside dedup's parallel loops and killed
    the worker process, again and again until Dask gave up (KilledWorker)."""
    frame = pd.DataFrame({"address": ["杭州市文三路478号华星大厦", "文三路478号华星科技大厦", "北京市海淀区"]})
    with pytest.raises(geoalign.GeoalignError, match="reads the encoder's probabilities"):
        gdask.dedup(dd.from_pandas(frame, npartitions=2), model=encoder_reading_rerank_head).compute()
    assert len(client.scheduler_info()["workers"]) == 2  # both still there


# --- dedup with every task bounded (max_task_addresses) ------------------------------------


def pairwise_f1(truth, got) -> float:
    """F1 of got's same-cluster row pairs against truth's."""
    def pairs(labels):
        return float(sum(n * (n - 1) // 2 for n in pd.Series(labels).value_counts()))
    both = float(sum(n * (n - 1) // 2 for n in pd.DataFrame({"t": truth, "g": got}).value_counts()))
    p, r = both / max(pairs(got), 1), both / max(pairs(truth), 1)
    return 2 * p * r / max(p + r, 1e-12)


def assert_same_table(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert list(got["id"]) == list(expected["id"])
    for c in ("cluster_id", "cluster_size", "best_match_id"):
        assert got[c].tolist() == expected[c].tolist(), c
    np.testing.assert_allclose(got["best_match_score"].astype(float), expected["best_match_score"], atol=1e-6)


def test_dedup_with_small_tasks_gives_the_clis_clusters(client, cli, grown, tmp_path):
    """100 addresses a task at most: rows (two partitions of 200, cut first), addresses,
    blocking tiles, scoring, components and clustering all sharded; candidates and
    clusters are the whole file's."""
    path = tmp_path / "addresses.tsv"
    grown.to_csv(path, sep="\t", header=False, index=False)
    got = gdask.dedup(dd.from_pandas(grown, npartitions=2), "address", id_column="id", model=MODEL,
                      max_task_addresses=100).compute()
    assert_same_table(got, cli_table(cli, path))


def test_dedup_in_coarse_vector_partitions_finds_nearly_the_clis_clusters(client, cli, grown, tmp_path, monkeypatch):
    """Above EXACT_VECTORS_UP_TO addresses vectors are searched in k-means partitions (the
    lexical search stays exact): nearly the same clusters."""
    monkeypatch.setattr(sharded, "EXACT_VECTORS_UP_TO", 0)  # read where the graph is built, here
    path = tmp_path / "addresses.tsv"
    grown.to_csv(path, sep="\t", header=False, index=False)
    expected = cli_table(cli, path)
    got = gdask.dedup(dd.from_pandas(grown, npartitions=4), "address", id_column="id", model=MODEL,
                      max_task_addresses=100).compute()
    assert pairwise_f1(expected["cluster_id"], got["cluster_id"]) >= 0.95


def test_a_component_above_the_cap_is_split_into_pieces_that_fit(client, cli, tmp_path):
    """300 ways of writing one campus link into one component of 300 addresses; with 100 a
    task it is split at a raised threshold, and no cluster holds more than 100 addresses."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "grow_addresses.py"), "300", "--shape",
                          "one-place", "--seed", "1"], capture_output=True, text=True, check=True).stdout
    frame = pd.DataFrame([line.split("\t") for line in out.splitlines()], columns=["id", "address"])
    path = tmp_path / "one_place.tsv"
    frame.to_csv(path, sep="\t", header=False, index=False)
    assert cli_table(cli, path)["cluster_size"].max() > 100  # one process makes a larger cluster
    got = gdask.dedup(dd.from_pandas(frame, npartitions=3), "address", id_column="id", model=MODEL,
                      max_task_addresses=100).compute()
    assert len(got) == len(frame) and got["cluster_id"].notna().all()
    assert got["cluster_size"].max() <= 100


def test_max_task_addresses_below_the_least_is_an_error(client, grown):
    with pytest.raises(ValueError, match="max_task_addresses must be at least 100"):
        gdask.dedup(dd.from_pandas(grown, npartitions=2), "address", id_column="id", model=MODEL, max_task_addresses=10)


class KillOnce:
    """A worker plugin that kills its worker process when a task of the given stage starts,
    once per job (a file marks that it fired)."""

    name = "kill-once"

    def __init__(self, stage: str, marker: str):
        self.stage, self.marker = stage, marker

    def transition(self, key, start, finish, **kwargs):
        import os

        name = key[0] if isinstance(key, tuple) else key
        if finish == "executing" and str(name).startswith(self.stage) and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)


@pytest.mark.parametrize("stage", ["lexical_tile", "cluster_bin"])
def test_a_worker_killed_mid_job_loses_and_repeats_no_row(cli, grown, tmp_path, stage):
    """Dask runs the killed worker's tasks again, and what it held is computed again from
    the graph: the answer is an undisturbed run's."""
    path = tmp_path / "addresses.tsv"
    grown.to_csv(path, sep="\t", header=False, index=False)
    marker = tmp_path / "killed"
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        c.register_worker_plugin(KillOnce(stage, str(marker)))
        got = gdask.dedup(dd.from_pandas(grown, npartitions=5), "address", id_column="id", model=MODEL,
                          max_task_addresses=100).compute()
    cluster.close()
    assert marker.exists()  # a worker did die
    assert_same_table(got, cli_table(cli, path))
