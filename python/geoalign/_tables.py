"""Columns of numpy arrays moved between Dask tasks, and the shuffles and joins over them.

A table is a dict of equally long numpy arrays. A shuffle splits each source table by a
bucket number per row and gathers every bucket's pieces in one task; a lookup joins the
keys of many tables against the tables that own them. Both are plain ``dask.delayed``
graphs, so each task holds one source table or one destination's rows, never the whole.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np
import pandas as pd

import dask

Table = dict  # column name -> numpy array, all of one length

Route = Callable[[Table], np.ndarray]  # a table's rows -> bucket numbers


def rows(t: Table) -> int:
    return len(next(iter(t.values()))) if t else 0


def take(t: Table, index) -> Table:
    return {c: v[index] for c, v in t.items()}


def concat(*tables: Table) -> Table:
    tables = [t for t in tables if t]
    if not tables:
        return {}
    return {c: np.concatenate([t[c] for t in tables]) for c in tables[0]}


def split(t: Table, route: Route, n: int) -> tuple:
    """The rows of t for each bucket 0..n-1, each in t's order."""
    if not t:
        return ({},) * n
    bucket = np.asarray(route(t), dtype=np.int64)
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(n + 1))
    return tuple(take(t, order[bounds[b]:bounds[b + 1]]) for b in range(n))


# --- routes -------------------------------------------------------------------------------


def _by_range(column: str, size: int, t: Table) -> np.ndarray:
    return t[column] // size


def by_range(column: str, size: int) -> Route:
    """Integer keys in runs of `size`: key // size."""
    return partial(_by_range, column, size)


def _by_hash(column: str, n: int, salt: int, t: Table) -> np.ndarray:
    # pandas' hash is the same in every process (Python's hash() of a str is not).
    keys = t[column]
    if keys.dtype.kind in "iu":
        keys = keys.astype(np.uint64) + np.uint64(salt)
        return (pd.util.hash_array(keys) % np.uint64(n)).astype(np.int64)
    return ((pd.util.hash_array(keys) + np.uint64(salt)) % np.uint64(n)).astype(np.int64)


def by_hash(column: str, n: int, salt: int = 0) -> Route:
    return partial(_by_hash, column, n, salt)


def _by_bounds(column: str, starts: np.ndarray, t: Table) -> np.ndarray:
    return np.searchsorted(starts, t[column], side="right") - 1


def by_bounds(column: str, starts) -> Route:
    """Keys into the runs that begin at `starts` (ascending, the first 0)."""
    return partial(_by_bounds, column, np.asarray(starts, dtype=np.int64))


def _by_rank_in(column: str, first: np.ndarray, before: np.ndarray, size: int, t: Table) -> np.ndarray:
    c = t[column]
    order = np.argsort(c, kind="stable")
    sorted_c = c[order]
    rank = np.empty(len(c), np.int64)
    rank[order] = np.arange(len(c)) - np.searchsorted(sorted_c, sorted_c, side="left")
    return first[c] + (before[c] + rank) // size


def by_rank_in(column: str, first, before, size: int) -> Route:
    """Groups (by `column`) cut into runs of `size` rows: a row's bucket is its group's
    first bucket plus (rows of its group in earlier tables, `before`, + its rank) // size."""
    return partial(_by_rank_in, column, np.asarray(first, np.int64), np.asarray(before, np.int64), size)


def _by_column(column: str, t: Table) -> np.ndarray:
    return t[column]


def by_column(column: str) -> Route:
    """The bucket number is the column itself."""
    return partial(_by_column, column)


# --- graphs -------------------------------------------------------------------------------


def shuffle(sources: list, route, n: int, then: Callable[[Table], object] = None) -> list:
    """Delayed tables: bucket b's rows of every source, in source order (then `then` of them).
    `route`: one route for every source, or a list of one per source."""
    extra = () if then is None else (then,)
    # Named after what they run (a stage's then), so that task streams read by stage.
    label = getattr(getattr(then, "fn", then), "__name__", "gather") if then is not None else "gather"
    fn = concat if then is None else _concat_then

    def gather(*inputs):
        return dask.delayed(fn, pure=True)(*inputs, dask_key_name=f"{label}-{dask.base.tokenize(fn, *inputs)}")

    if n == 1:
        return [gather(*extra, *sources)]
    routes = route if isinstance(route, list) else [route] * len(sources)
    pieces = [dask.delayed(split, nout=n, pure=True)(s, r, n) for s, r in zip(sources, routes)]
    return [gather(*extra, *[p[b] for p in pieces]) for b in range(n)]


def _concat_then(then, *tables):
    return then(concat(*tables))


def _answer(owner: Table, owner_key: str, key: str, fields: tuple, n_requesters: int, *requests: Table) -> tuple:
    """Each requester's keys with the owner's fields, in the order asked."""
    out = []
    order = np.argsort(owner[owner_key], kind="stable") if owner else np.zeros(0, np.int64)
    sorted_keys = owner[owner_key][order] if owner else np.zeros(0, np.int64)
    for r in requests:
        if not r:
            out.append({})
            continue
        at = np.minimum(np.searchsorted(sorted_keys, r[key]), max(len(sorted_keys) - 1, 0))
        found = sorted_keys[at] == r[key] if len(sorted_keys) else np.zeros(len(r[key]), bool)
        if not found.all():
            missing = r[key][~found][0]
            raise KeyError(f"lookup: key {missing} has no owner row")
        rows_at = order[at]
        answer = {key: r[key], "_i": r["_i"]}
        answer.update({f: owner[f][rows_at] for f in fields})
        out.append(answer)
    return tuple(out) if n_requesters > 1 else out[0]


def _request(t: Table, key: str, route: Route, n: int):
    ask = {key: t[key], "_i": np.arange(rows(t), dtype=np.int64)} if t else {}
    return split(ask, route, n) if n > 1 else ask


def _place(t: Table, key: str, fields: tuple, *answers: Table) -> Table:
    """t with the looked-up fields, row for row."""
    out = dict(t)
    got = concat(*answers)
    if not t:
        return t
    for f in fields:
        column = got[f] if got else np.zeros(0)
        placed = np.empty((rows(t),) + column.shape[1:], dtype=column.dtype)
        placed[got["_i"]] = column
        out[f] = placed
    return out


def lookup(requesters: list, key: str, owners: list, owner_key: str, owner_of: Route, fields: tuple) -> list:
    """Each requester table with `fields` added from the owner row whose `owner_key` is its `key`.

    owner_of routes a requester's rows (by their `key`) to the owner table holding it;
    every key must have one.
    """
    n, m = len(owners), len(requesters)
    ask = [dask.delayed(_request, nout=n, pure=True)(t, key, owner_of, n) if n > 1 else
           dask.delayed(_request, pure=True)(t, key, owner_of, n) for t in requesters]
    answers = []
    for o, owner in enumerate(owners):
        asked = [a[o] for a in ask] if n > 1 else ask
        answers.append(dask.delayed(_answer, nout=m, pure=True)(owner, owner_key, key, fields, m, *asked) if m > 1 else
                       dask.delayed(_answer, pure=True)(owner, owner_key, key, fields, m, *asked))
    place = dask.delayed(_place, pure=True)
    return [place(t, key, fields, *[(a[r] if m > 1 else a) for a in answers]) for r, t in enumerate(requesters)]
