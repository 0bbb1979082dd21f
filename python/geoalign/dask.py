"""geoalign on a Dask cluster: score address pairs and deduplicate address files.

The same code runs on a laptop's ``LocalCluster`` and on a cluster of many machines.
Each worker process loads a model once and keeps it; tasks run batched C++ with the
worker's threads.

>>> from dask.distributed import Client, LocalCluster
>>> client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
>>> scored = geoalign.dask.score(ddf, "addr1", "addr2").compute()
>>> clusters = geoalign.dask.dedup(ddf, "address", id_column="id").compute()

``dedup`` gives the clusters ``geoalign dedup`` gives on the same rows: it runs the
same stages, as tasks that each hold at most ``max_task_addresses`` addresses (blocking
in tiles of address ranges, clustering by connected components; geoalign/_sharded_dedup.py),
so no worker needs the whole file in memory.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Optional

import numpy as np
import pandas as pd

import dask
import dask.dataframe as dd

from . import _geoalign
from . import _sharded_dedup as sharded
from ._inputs import bad_text, id_text, row_name
from ._models import model_dir

__all__ = ["score", "dedup"]

SCORE_COLUMNS = ["label", "score", "p_not_match", "p_partial_match", "p_exact_match"]
DEDUP_COLUMNS = ["cluster_id", "cluster_size", "best_match_id", "best_match_score"]
# Worker memory per address of the default max_task_addresses. A task took at most about
# 4.8 kB per address of the bound (500,000 synthetic addresses, docs/python.md); the rest
# is for what the worker keeps between stages and its model.
MEMORY_PER_ADDRESS = 20_000
MIN_TASK_ADDRESSES = 100

# --- one model per worker process ------------------------------------------------------

_cache: dict[Hashable, Any] = {}
_cache_lock = threading.Lock()
loads = 0  # models this process has loaded (tests check it stays one per worker)


@dataclass(frozen=True)
class Layout:
    """How a job's tasks share the cluster's cores."""

    slots: int  # tasks that run at once over all workers (their threads)
    threads: int  # C++ threads per task: a host's cores over the task slots on it


def _worker_cores() -> int:
    """Runs on a worker: the cores its process may use (a container's quota included)."""
    return int(_geoalign.available_cores())


def layout() -> Layout:
    """The current Dask client's workers, grouped by host. 2 cores and 2 one-thread
    workers give 1 thread per task; 2 cores and 1 one-thread worker give 2. Without a
    distributed client, the local scheduler: threads 0 (every core, the engine's own
    parallel loops)."""
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        return Layout(slots=_geoalign.available_cores(), threads=0)
    workers = client.scheduler_info()["workers"]
    cores = client.run(_worker_cores)
    slots: dict[str, int] = {}
    host_cores: dict[str, int] = {}
    for address, info in workers.items():
        slots[info["host"]] = slots.get(info["host"], 0) + int(info["nthreads"])
        host_cores[info["host"]] = cores.get(address, 1)
    if not slots:
        raise ValueError("the Dask client has no workers")
    return Layout(slots=sum(slots.values()), threads=max(1, min(host_cores[h] // max(slots[h], 1) for h in slots)))


def _cached(key: Hashable, make: Callable[[], Any], threads: int) -> Any:
    global loads
    _geoalign.set_threads(threads)  # process-wide; every task of a job asks for the same
    with _cache_lock:
        if key not in _cache:
            _cache[key] = make()
            loads += 1
        return _cache[key]


def _matcher(model: str, precision: str, threads: int, aliases: Optional[str], ordered: bool = False,
             head: str = "match"):
    from . import Matcher

    return _cached(("matcher", model, precision, aliases, ordered, head),
                   lambda: Matcher(model, precision=precision, aliases=aliases, ordered=ordered, head=head), threads)


@dataclass(frozen=True)
class _Engine:
    """What every dedup task needs to find its worker's model."""

    model: str
    precision: str
    head: str
    threads: int  # per task
    aliases: Optional[str] = None  # the user's names for places


def _dedup_model(e: _Engine):
    return _cached(("dedup", e.model, e.precision, e.head, e.aliases),
                   lambda: _geoalign.DedupModel(e.model, e.precision, e.head, e.aliases or ""), e.threads)


def _check_on_error(on_error: str) -> None:
    if on_error not in ("fail", "skip"):
        raise ValueError(f'on_error must be "fail" or "skip", not "{on_error}"')


# --- score ------------------------------------------------------------------------------


def _score_partition(part: pd.DataFrame, addr1: str, addr2: str, model: str, precision: str, threads: int,
                     batch_size: int, on_error: str, aliases: Optional[str], ordered: bool,
                     head: str) -> pd.DataFrame:
    errors = [None] * len(part)
    for i, (a, b) in enumerate(zip(part[addr1], part[addr2])):
        why = bad_text(a) or bad_text(b)
        if why is not None:
            where = addr1 if bad_text(a) else addr2
            if on_error == "fail":
                raise ValueError(f"{row_name(part, i, None)}, column {where}: {why}")
            errors[i] = f"{where}: {why}"
    good = [i for i, e in enumerate(errors) if e is None]
    # Whole columns, filled where a row was scored: a bad row keeps None and NaN.
    columns = {c: np.full(len(part), None, dtype=object) if c == "label" else np.full(len(part), np.nan, np.float32)
               for c in SCORE_COLUMNS}
    if good:
        scored = _matcher(model, precision, threads, aliases, ordered, head).score_frame(
            part.iloc[good], addr1, addr2, batch_size=batch_size)
        for c in SCORE_COLUMNS:
            columns[c][good] = scored[c].to_numpy()
    out = part.copy()
    for c in SCORE_COLUMNS:
        out[c] = columns[c]
    if on_error == "skip":
        out["error"] = errors
    return out


def score(ddf: dd.DataFrame, addr1: str = "addr1", addr2: str = "addr2", *, model: Optional[str] = None,
          precision: str = "auto", batch_size: int = 64, on_error: str = "fail",
          threads: Optional[int] = None, aliases: Optional[str] = None, ordered: bool = False,
          head: str = "match") -> dd.DataFrame:
    """Scores the address pairs in two columns of a Dask DataFrame.

    Returns the frame with ``label``, ``score``, ``p_not_match``, ``p_partial_match`` and
    ``p_exact_match`` added, partition by partition, with the labels and probabilities
    ``geoalign score`` gives. Each worker loads the model once.

    on_error: ``"fail"`` (a bad cell, None or blank or not a str, fails the job naming
    its row and column) or ``"skip"`` (the row keeps empty scores and an ``error`` column
    says why; nothing is dropped).

    threads: C++ threads per task; None: a host's cores shared by the worker threads on
    it (:func:`layout`).

    aliases: a file of your own names for places (``short<TAB>full`` per line), read
    beside the model's, as in :class:`geoalign.Matcher`; every worker must reach it.

    ordered: read each pair as given (``addr1`` the query, ``addr2`` the reference), as
    :class:`geoalign.Matcher`'s ``ordered``; by default a pair's answer does not depend on
    which column holds which address.

    head: ``"match"`` or ``"rerank"``, as :class:`geoalign.Matcher`'s ``head``.
    """
    _check_on_error(on_error)
    if head not in ("match", "rerank"):
        raise ValueError(f"head must be 'match' or 'rerank', not {head!r}")
    for c in (addr1, addr2):
        if c not in ddf.columns:
            raise ValueError(f"no column {c!r} in the frame (columns: {list(ddf.columns)})")
    model = model_dir(model)
    meta = ddf._meta.copy()
    meta["label"] = pd.Series(dtype=object)
    for c in SCORE_COLUMNS[1:]:
        meta[c] = pd.Series(dtype="float32")
    if on_error == "skip":
        meta["error"] = pd.Series(dtype=object)
    return ddf.map_partitions(_score_partition, addr1, addr2, model, precision,
                              layout().threads if threads is None else threads, batch_size, on_error,
                              None if aliases is None else str(aliases), bool(ordered), head, meta=meta)


# --- dedup ------------------------------------------------------------------------------


def _normalize_partition(part: pd.DataFrame, column: str, id_column: Optional[str], engine: _Engine,
                         on_error: str) -> tuple[list, list, Optional[list]]:
    """Per row: its normalized text (None for a bad row), why it is bad, and its id."""
    values = list(part[column])
    errors: list[Optional[str]] = [bad_text(v) for v in values]
    ids = [str(label) for label in part.index]
    if id_column:
        ids = []
        for i, value in enumerate(part[id_column]):
            row_id, why = id_text(value)
            ids.append(row_id)
            if why is not None and errors[i] is None:
                errors[i] = f"id {why}"
    good = [i for i, e in enumerate(errors) if e is None]
    texts: list[Optional[str]] = [None] * len(values)
    normalized, why = _dedup_model(engine).normalize([values[i] for i in good])
    for i, t, e in zip(good, normalized, why):
        texts[i], errors[i] = t, e
    if on_error == "fail":
        for i, e in enumerate(errors):
            if e is not None:
                raise ValueError(f"{row_name(part, i, id_column)}: {e}")
    return texts, errors, ids


def _default_cap() -> int:
    """Addresses one dedup task may hold by default: what the smallest worker's memory
    limit holds at MEMORY_PER_ADDRESS each (without a distributed client, this machine's
    memory)."""
    try:
        from distributed import get_client

        limits = [int(w.get("memory_limit") or 0) for w in get_client().scheduler_info()["workers"].values()]
        memory = min(limits) if limits and min(limits) > 0 else _machine_memory()
    except (ImportError, ValueError):
        memory = _machine_memory()
    return max(MIN_TASK_ADDRESSES, int(memory // MEMORY_PER_ADDRESS))


def _machine_memory() -> int:
    import os

    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _rows_out(part: pd.DataFrame, normalized: tuple[list, list, Optional[list]], repeats: dict, columns: dict,
              on_error: str) -> pd.DataFrame:
    texts, errors, _ = normalized
    errors = list(errors)
    for j, why in zip(repeats.get("pos", []), repeats.get("why", [])):
        errors[int(j)] = why
    out = part.copy()
    for c in DEDUP_COLUMNS:
        values = np.full(len(part), None, dtype=object)
        values[columns["pos"]] = columns[c]
        out[c] = values
    out["cluster_size"] = out["cluster_size"].astype("Int64")
    out["best_match_score"] = out["best_match_score"].astype("float32")
    if on_error == "skip":
        out["error"] = errors
    return out


def _dedup_tasks(ddf: dd.DataFrame, column: str, id_column: Optional[str], model: str, threshold: Optional[float],
                 merge: str, neighbours: int, precision: str, head: str, on_error: str,
                 addresses_per_task: Optional[int], pairs_per_task: Optional[int], threads: Optional[int],
                 aliases: Optional[str], cap: int) -> tuple[dd.DataFrame, list, sharded.Tasks]:
    """dedup's work up to the columns it adds: (the frame as partitioned for it, each
    partition normalized, the tasks)."""
    cores = layout()
    engine = _Engine(model, precision, head, cores.threads if threads is None else threads,
                     None if aliases is None else str(aliases))
    # No task may read more rows than the cap: larger partitions are cut evenly first.
    lengths = ddf.map_partitions(len).compute()
    if len(lengths) and max(lengths) > cap:
        ddf = ddf.repartition(npartitions=ddf.npartitions * -(-int(max(lengths)) // cap))
    normalize = dask.delayed(_normalize_partition, pure=True)
    normalized = list(dask.persist(*[normalize(p, column, id_column, engine, on_error) for p in ddf.to_delayed()]))
    tasks = sharded.dedup_tasks(
        normalized, engine, _dedup_model, cap=cap, range_size=addresses_per_task, slots=cores.slots,
        pairs_at_once=pairs_per_task, neighbours=neighbours, merge=merge, threshold=threshold, on_error=on_error,
        ids_from_index=id_column is None)
    return ddf, normalized, tasks


def dedup(ddf: dd.DataFrame, column: str = "address", *, id_column: Optional[str] = None,
          model: Optional[str] = None, threshold: Optional[float] = None, merge: str = "exact", neighbours: int = 20,
          precision: str = "auto", head: str = "rerank", on_error: str = "fail",
          addresses_per_task: Optional[int] = None, pairs_per_task: Optional[int] = None,
          threads: Optional[int] = None, aliases: Optional[str] = None,
          max_task_addresses: Optional[int] = None) -> dd.DataFrame:
    """Deduplicates the addresses in one column of a Dask DataFrame into entities.

    Returns the frame with ``cluster_id``, ``cluster_size``, ``best_match_id`` and
    ``best_match_score`` added: the columns and values of ``geoalign dedup`` on the same
    rows (options as there). Ids are ``id_column``'s values, or the frame's index labels,
    which must then be unique (``dd.read_csv`` numbers every partition from 0: pass
    ``id_column`` there); ``cluster_id`` is the id of the cluster's first row. An id that
    is not a str or int (NaN, None), empty, or repeated is a bad row.

    on_error: ``"fail"`` (a bad row, None or blank or not a str, fails the job naming it)
    or ``"skip"`` (the row is left out of dedup, keeps empty cluster columns, and an
    ``error`` column says why; nothing is dropped).

    threads: C++ threads per task, as for :func:`score`; aliases: as for :func:`score`.

    max_task_addresses: no task holds the data of more addresses than this (texts,
    vectors, parses, candidate lists, links; at least 100). None: the smallest worker's
    memory limit over MEMORY_PER_ADDRESS (20 kB). Up to 50,000 addresses the answer is
    the single process's whatever the bound; above, vectors are searched in coarse
    partitions. A component of linked addresses above the bound is split at a raised
    threshold, so no cluster holds more addresses than it.

    addresses_per_task: addresses per range (the unit of embedding, blocking tiles and
    scoring; at most max_task_addresses / 2); None: at least four ranges per worker
    thread. pairs_per_task: pairs scored in one call (at most max_task_addresses / 2).

    The steps up to clustering run when this is called (on the current Dask scheduler);
    the returned frame maps the result back onto the rows, partition by partition.
    """
    _check_on_error(on_error)
    if merge not in ("exact", "partial"):
        raise ValueError(f'merge must be "exact" or "partial", not "{merge}"')
    if threshold is not None and not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], not {threshold}")
    if not 1 <= neighbours <= _geoalign.MAX_NEIGHBOURS:
        raise ValueError(f"neighbours must be in 1..{_geoalign.MAX_NEIGHBOURS}, not {neighbours}")
    for c in (column, id_column):
        if c is not None and c not in ddf.columns:
            raise ValueError(f"no column {c!r} in the frame (columns: {list(ddf.columns)})")
    if max_task_addresses is not None and max_task_addresses < MIN_TASK_ADDRESSES:
        raise ValueError(f"max_task_addresses must be at least {MIN_TASK_ADDRESSES}, not {max_task_addresses}")
    ddf, normalized, tasks = _dedup_tasks(ddf, column, id_column, model_dir(model), threshold, merge, neighbours,
                                          precision, head, on_error, addresses_per_task, pairs_per_task, threads,
                                          aliases, max_task_addresses or _default_cap())
    parts = ddf.to_delayed()
    repeats, columns = tasks.repeats, dask.persist(*tasks.columns)

    meta = ddf._meta.copy()
    for c in DEDUP_COLUMNS:
        meta[c] = pd.Series(dtype=object)
    meta["cluster_size"] = pd.Series(dtype="Int64")
    meta["best_match_score"] = pd.Series(dtype="float32")
    if on_error == "skip":
        meta["error"] = pd.Series(dtype=object)
    outputs = [dask.delayed(_rows_out, pure=True)(part, nz, rep, col, on_error)
               for part, nz, rep, col in zip(parts, normalized, repeats, columns)]
    return dd.from_delayed(outputs, meta=meta, divisions=ddf.divisions)
