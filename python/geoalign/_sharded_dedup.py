"""geoalign.dask.dedup's stages as tasks that each hold at most `cap` addresses.

Rows are numbered over the good rows of every partition; an address is named by the
number of its first row (so address order is first-row order, as the engine numbers
them, and a cluster named by its smallest address is named by its first row). Stages:

1. rows: normalize each partition; repeated ids found by a shuffle on the id.
2. addresses: a shuffle on the text gives each text its first row, row count and second
   row; addresses then live in ranges of `range_size` consecutive numbers.
3. embed and locate each range.
4. block: each range's addresses are searched in every range, one pair of ranges per
   task: lexically with the whole file's gram counts (so a shard's scores are the whole
   index's and the merged top k is the whole file's), and by vector exactly up to
   EXACT_VECTORS_UP_TO addresses, as one process does. Above that, vectors are searched
   in coarse partitions instead: k-means centroids learnt on a sample, every address in
   its ASSIGNMENTS nearest partitions (so neighbours across a border meet), each
   partition searched exactly in its own task. The hits are merged per range and made
   into pairs as Deduplicator::block does.
5. score: candidate pairs are shuffled to the range of their first address, their
   repeats dropped, and scored in chunks of at most cap / 2 pairs.
6. components: label propagation over the links at or above the threshold (each node
   takes the smallest label among its neighbours until none changes) gives connected
   components; merges never cross them (a merge needs such a link). A component above the
   cap is split at a higher threshold until its pieces fit.
7. cluster: components are packed into bins of at most `cap` addresses by a hash of their
   label, and each bin is clustered by the engine's average linkage with the candidate
   pairs inside its components: the clusters the whole file gives, since the linkage
   looks at nothing outside a component.
8. rows out: each row gets its address's cluster and best match (the strongest candidate
   link, or a stronger link clustering scored), joined back by row number.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

import dask

from . import _geoalign
from . import _tables as tb

ASSIGNMENTS = 2  # coarse partitions each address joins: neighbours across a border still meet
KMEANS_ITERATIONS = 10
KMEANS_SAMPLE_PER_CENTROID = 40
MERGE_FAN_IN = 4  # hit tables one merging task takes
MAX_SPLITS = 20  # threshold raises a component above the cap may take
# Up to this many addresses vector neighbours are found exactly (slices against slices), as
# one process finds them; above, in coarse partitions (one process: an HNSW graph).
EXACT_VECTORS_UP_TO = _geoalign.EXACT_NEIGHBOURS_UP_TO
PARTITION_ADDRESSES = 50_000  # a coarse partition's size at most: its exact search costs the square


def held(addresses: int, cap: int, task: str) -> None:
    """The bound every task keeps, checked where a task takes addresses in."""
    if addresses > cap:
        raise RuntimeError(f"geoalign.dask: a {task} task was given {addresses} addresses, above "
                           f"max_task_addresses={cap}; this is a bug in geoalign, please report it")


# --- 1. rows -------------------------------------------------------------------------------


def row_table(normalized: tuple, part: int) -> tb.Table:
    texts, _errors, ids = normalized
    keep = [j for j, t in enumerate(texts) if t is not None]
    return {"part": np.full(len(keep), part, np.int64), "pos": np.asarray(keep, np.int64),
            "id": np.asarray([ids[j] for j in keep], dtype=object), "text": np.asarray([texts[j] for j in keep], dtype=object)}


def repeated_ids(t: tb.Table, ids_from_index: bool, on_error: str) -> tb.Table:
    """The rows whose id an earlier row (by partition, then position) already has."""
    if not t:
        return {"part": np.zeros(0, np.int64), "pos": np.zeros(0, np.int64), "why": np.zeros(0, object)}
    order = np.lexsort((t["pos"], t["part"]))
    seen: dict = {}
    parts, positions, why = [], [], []
    for i in order:
        row_id, p, j = t["id"][i], int(t["part"][i]), int(t["pos"][i])
        if row_id not in seen:
            seen[row_id] = f"partition {p}, row {j}"
            continue
        if ids_from_index:
            raise ValueError(
                f"partition {p}, row {j}: index label {row_id!r} repeats {seen[row_id]}'s; without "
                "id_column rows are named by their index labels, which must be unique (dd.read_csv numbers "
                "every partition from 0): pass id_column")
        reason = f'id "{row_id}" already used by {seen[row_id]}'
        if on_error == "fail":
            raise ValueError(f"partition {p}, row {j}: {reason}")
        parts.append(p)
        positions.append(j)
        why.append(reason)
    return {"part": np.asarray(parts, np.int64), "pos": np.asarray(positions, np.int64), "why": np.asarray(why, object)}


def good_rows(t: tb.Table, repeats: tb.Table) -> tb.Table:
    """A partition's rows that take part, in order (its repeats left out)."""
    if not t:
        return {"pos": np.zeros(0, np.int64), "id": np.zeros(0, object), "text": np.zeros(0, object)}
    keep = ~np.isin(t["pos"], repeats["pos"]) if repeats else np.ones(tb.rows(t), bool)
    return {"pos": t["pos"][keep], "id": t["id"][keep], "text": t["text"][keep]}


def numbered(t: tb.Table, first: int) -> tb.Table:
    out = dict(t)
    out["row"] = first + np.arange(tb.rows(t), dtype=np.int64)
    return out


# --- 2. addresses --------------------------------------------------------------------------


def texts_of_rows(t: tb.Table) -> tb.Table:
    return {"row": t["row"], "text": t["text"]} if t else {}


def first_rows(t: tb.Table) -> tuple:
    """(each row's address, each text's address with its text, row count and second row)."""
    if not t:
        return {}, {}
    order = np.lexsort((t["row"], t["text"].astype(str)))
    text, row = t["text"][order], t["row"][order]
    starts = np.flatnonzero(np.r_[True, text[1:] != text[:-1]])
    counts = np.diff(np.r_[starts, len(text)])
    address = np.repeat(row[starts], counts)
    second = np.where(counts > 1, row[np.minimum(starts + 1, len(row) - 1)], -1)
    return ({"row": row, "address": address},
            {"address": row[starts], "text": text[starts], "rows": counts.astype(np.int64), "second": second})


def sort_by(t: tb.Table, column: str) -> tb.Table:
    return tb.take(t, np.argsort(t[column], kind="stable")) if t else t


# --- 3. embed ------------------------------------------------------------------------------


def embed_range(t: tb.Table, engine, dedup_model, cap: int) -> tb.Table:
    t = sort_by(t, "address")
    if not t:
        return t
    held(tb.rows(t), cap, "embedding")
    vectors, regions = dedup_model(engine).embed_and_locate(list(t["text"]))
    out = dict(t)
    out["vector"] = np.asarray(vectors, np.float32)
    out["region"] = np.asarray(regions, np.uint64)
    return out


def count(t: tb.Table) -> int:
    return tb.rows(t)


# --- 4. block ------------------------------------------------------------------------------


def sample_vectors(t: tb.Table, size: int, seed: int) -> np.ndarray:
    if not t or size <= 0:
        return np.zeros((0, 0), np.float32)
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(tb.rows(t), size=min(size, tb.rows(t)), replace=False))
    return t["vector"][pick]


def kmeans(k: int, seed: int, *samples: np.ndarray) -> np.ndarray:
    """k centroids (unit vectors) of the samples by spherical k-means, k-means++ seeded."""
    x = np.concatenate([s for s in samples if len(s)])
    rng = np.random.default_rng(seed)
    k = min(k, len(x))
    centroids = [x[rng.integers(len(x))]]
    nearest = 1.0 - x @ centroids[0]
    for _ in range(1, k):
        weights = np.maximum(nearest, 0) ** 2
        pick = rng.choice(len(x), p=weights / weights.sum()) if weights.sum() > 0 else rng.integers(len(x))
        centroids.append(x[pick])
        nearest = np.minimum(nearest, 1.0 - x @ x[pick])
    c = np.asarray(centroids, np.float32)
    for _ in range(KMEANS_ITERATIONS):
        assign = np.argmax(x @ c.T, axis=1)
        for j in range(k):
            members = x[assign == j]
            if len(members):
                s = members.sum(axis=0)
                c[j] = s / max(np.linalg.norm(s), 1e-12)
    return c


def assign(t: tb.Table, centroids: Optional[np.ndarray], assignments: int) -> tb.Table:
    """Each address once per coarse partition it joins (its `assignments` nearest centroids)."""
    if not t:
        return {}
    n = tb.rows(t)
    if centroids is None or len(centroids) == 1:
        nearest = np.zeros((n, 1), np.int64)
    else:
        m = min(assignments, len(centroids))
        similarity = t["vector"] @ centroids.T
        nearest = np.argpartition(-similarity, m - 1, axis=1)[:, :m]
    each = np.repeat(np.arange(n), nearest.shape[1])
    out = tb.take(t, each)
    out["centroid"] = nearest.reshape(-1).astype(np.int64)
    return out


def centroid_counts(t: tb.Table, k: int) -> np.ndarray:
    return np.bincount(t["centroid"], minlength=k) if t else np.zeros(k, np.int64)


LEXICAL, VECTOR = 0, 1


def range_grams(t: tb.Table) -> tb.Table:
    if not t:
        return {}
    _, grams, df = _geoalign.dedup_gram_counts(list(t["text"]))
    return {"gram": np.asarray(grams, np.uint64), "df": np.asarray(df, np.int64)}


def summed_grams(t: tb.Table) -> tb.Table:
    if not t:
        return {}
    gram, where = np.unique(t["gram"], return_inverse=True)
    return {"gram": gram, "df": np.bincount(where, weights=t["df"]).astype(np.int64)}


def corpus_grams(records: int, *buckets: tb.Table) -> tuple:
    """(addresses, grams sorted, how many hold each): the whole file's, for lexical tiles.
    One table of grams, not of addresses: it grows with the vocabulary."""
    t = sort_by(tb.concat(*buckets), "gram")
    return records, t["gram"].astype(np.uint64), t["df"].astype(np.uint32)


def _hits(queries: tb.Table, shard: tb.Table, found: tuple, kind: int) -> tb.Table:
    """Hits by global address; their texts and regions are looked up once merged (a range
    has shards x neighbours of them before)."""
    q, h, score = (np.asarray(x) for x in found)
    q, h = q.astype(np.int64), h.astype(np.int64)
    return {"query": queries["address"][q], "hit": shard["address"][h], "score": np.asarray(score, np.float32),
            "kind": np.full(len(q), kind, np.int8)}


def lexical_tile(queries: tb.Table, shard: tb.Table, corpus: tuple, neighbours: int, cap: int) -> tb.Table:
    """The queries' best lexical hits in one shard, scored as in the whole file; the
    address itself comes back too, as in Deduplicator::block."""
    if not queries or not shard:
        return {}
    held(len(np.union1d(queries["address"], shard["address"])), cap, "lexical search")
    records, grams, df = corpus
    found = _geoalign.dedup_lexical_hits(list(shard["text"]), list(queries["text"]), records, grams, df, neighbours + 1)
    return _hits(queries, shard, found, LEXICAL)


def vector_tile(queries: tb.Table, shard: tb.Table, neighbours: int, same_rows: bool, cap: int) -> tb.Table:
    """The queries' nearest vectors in one shard (a coarse partition: same_rows)."""
    if not queries or not shard:
        return {}
    held(len(np.union1d(queries["address"], shard["address"])), cap, "vector search")
    found = _geoalign.dedup_vector_hits(shard["vector"], queries["vector"], neighbours, same_rows)
    return _hits(queries, shard, found, VECTOR)


def partition_hits(t: tb.Table, neighbours: int, cap: int) -> tb.Table:
    t = sort_by(t, "address")
    return vector_tile(t, t, neighbours, True, cap)


def best_hits(neighbours: int, *hits: tb.Table) -> tb.Table:
    """Per address and kind its first neighbours + 1 lexical and neighbours vector hits of
    all those given (best score, then the lower address); a hit found twice (in two coarse
    partitions) counts once. Merging in steps gives what merging at once gives."""
    h = tb.concat(*hits)
    if not h:
        return {}
    order = np.lexsort((h["hit"], -h["score"].astype(np.float64), h["query"], h["kind"]))
    h = tb.take(h, order)
    same = np.r_[False, (h["kind"][1:] == h["kind"][:-1]) & (h["query"][1:] == h["query"][:-1]) &
                 (h["hit"][1:] == h["hit"][:-1])]
    h = tb.take(h, ~same)
    group = np.r_[True, (h["kind"][1:] != h["kind"][:-1]) | (h["query"][1:] != h["query"][:-1])]
    start = np.maximum.accumulate(np.where(group, np.arange(len(group)), 0))
    rank = np.arange(len(group)) - start
    return tb.take(h, rank < np.where(h["kind"] == LEXICAL, neighbours + 1, neighbours))


def candidates_of(queries: tb.Table, h: tb.Table) -> tb.Table:
    """A range's candidate pairs from its addresses' best hits over every shard, each with
    the hit's text and region: less each address itself and conflicting regions; pairs by
    global address, with texts."""
    if not h or not queries:
        return {}
    at = np.searchsorted(queries["address"], h["query"])
    keep = (h["hit"] != h["query"]) & ~np.asarray(
        _geoalign.dedup_region_conflicts(queries["region"][at], h["region"]), bool)
    h, at = tb.take(h, keep), at[keep]
    first = h["query"] < h["hit"]
    return {"a": np.where(first, h["query"], h["hit"]), "b": np.where(first, h["hit"], h["query"]),
            "text_a": np.where(first, queries["text"][at], h["text"]),
            "text_b": np.where(first, h["text"], queries["text"][at])}


# --- 5. score ------------------------------------------------------------------------------


def score_range(t: tb.Table, engine, dedup_model, merge: str, pairs_at_once: int, cap: int) -> tb.Table:
    """A range's candidate pairs without repeats, in (a, b) order, scored."""
    if not t:
        return {}
    key = t["a"] * (1 << 32) + t["b"]
    _, first = np.unique(key, return_index=True)  # sorted by key: (a, b) order
    t = tb.take(t, first)
    model = dedup_model(engine)
    labels, probabilities = [], []
    for i in range(0, tb.rows(t), pairs_at_once):
        chunk = tb.take(t, slice(i, i + pairs_at_once))
        addresses, where = np.unique(np.concatenate([chunk["a"], chunk["b"]]), return_index=True)
        held(len(addresses), cap, "scoring")
        texts = np.concatenate([chunk["text_a"], chunk["text_b"]])[where]
        pairs = np.stack([np.searchsorted(addresses, chunk["a"]), np.searchsorted(addresses, chunk["b"])], axis=1)
        label, probability = model.score_pairs(list(texts), pairs.astype(np.uint32))
        labels.append(np.asarray(label))
        probabilities.append(np.asarray(probability))
    probability = np.concatenate(probabilities)
    return {"a": t["a"], "b": t["b"], "label": np.concatenate(labels), "p": probability,
            "link": np.asarray(_geoalign.dedup_links(probability, merge), np.float32)}


def pair_ends(t: tb.Table) -> tb.Table:
    """Each scored pair from both of its addresses."""
    if not t:
        return {}
    return {"x": np.concatenate([t["a"], t["b"]]), "y": np.concatenate([t["b"], t["a"]]),
            "link": np.concatenate([t["link"], t["link"]]), "a": np.concatenate([t["a"], t["a"]]),
            "b": np.concatenate([t["b"], t["b"]])}


def best_candidates(t: tb.Table) -> tb.Table:
    """Per address its strongest candidate link; of equal links the first pair in (a, b)
    order, as the engine reads its sorted candidates."""
    if not t:
        return {"address": np.zeros(0, np.int64), "best": np.zeros(0, np.int64), "best_link": np.zeros(0, np.float32)}
    order = np.lexsort((t["b"], t["a"], -t["link"].astype(np.float64), t["x"]))
    x = t["x"][order]
    first = order[np.r_[True, x[1:] != x[:-1]]]
    return {"address": t["x"][first], "best": t["y"][first], "best_link": t["link"][first]}


# --- 6. components -------------------------------------------------------------------------


def strong_edges(t: tb.Table, threshold: np.float32) -> tb.Table:
    """Links a merge can start from, from both ends."""
    if not t:
        return {}
    keep = t["link"] >= threshold
    a, b, link = t["a"][keep], t["b"][keep], t["link"][keep]
    return {"src": np.concatenate([a, b]), "dst": np.concatenate([b, a]), "link": np.concatenate([link, link])}


def initial_labels(addresses: tb.Table, edges: tb.Table) -> tb.Table:
    node = addresses["address"] if addresses else np.zeros(0, np.int64)
    linked = np.isin(node, edges["src"]) if edges else np.zeros(len(node), bool)
    return {"node": node, "component": node.copy(), "linked": linked, "changed": linked.copy()}


def label_messages(labels: tb.Table, edges: tb.Table) -> tb.Table:
    """(dst, component of src) along each edge whose source changed its component last round."""
    if not edges or not labels:
        return {}
    at = np.searchsorted(labels["node"], edges["src"])
    moved = labels["changed"][at]
    return {"dst": edges["dst"][moved], "component": labels["component"][at][moved]}


def relax(labels: tb.Table, *messages: tb.Table) -> tb.Table:
    got = tb.concat(*messages)
    out = dict(labels)
    component = labels["component"].copy()
    if got:
        at = np.searchsorted(labels["node"], got["dst"])
        np.minimum.at(component, at, got["component"])
    out["changed"] = component < labels["component"]
    out["component"] = component
    return out


def changed(labels: tb.Table) -> int:
    return int(labels["changed"].sum()) if labels else 0


def restart_labels(labels: tb.Table, giants: np.ndarray) -> tb.Table:
    """The nodes of components above the cap become their own labels again."""
    out = dict(labels)
    if not labels:
        return out
    again = np.isin(labels["component"], giants)
    out["component"] = np.where(again, labels["node"], labels["component"])
    out["changed"] = again
    return out


def edges_within(edges: tb.Table, labels_of_src: tb.Table, giants: np.ndarray, threshold: np.float32) -> tb.Table:
    """The edges of components above the cap that reach a raised threshold."""
    if not edges:
        return {}
    at = np.searchsorted(labels_of_src["node"], edges["src"])
    keep = np.isin(labels_of_src["component"][at], giants) & (edges["link"] >= threshold)
    return tb.take(edges, keep)


def label_counts(labels: tb.Table) -> tb.Table:
    if not labels:
        return {}
    component, n = np.unique(labels["component"][labels["linked"]], return_counts=True)
    return {"component": component, "size": n.astype(np.int64)}


def component_sizes(t: tb.Table) -> tb.Table:
    if not t:
        return {}
    component, where = np.unique(t["component"], return_inverse=True)
    return {"component": component, "size": np.bincount(where, weights=t["size"]).astype(np.int64)}


def above(t: tb.Table, cap: int) -> np.ndarray:
    return t["component"][t["size"] > cap] if t else np.zeros(0, np.int64)


def bin_sizes(t: tb.Table, bins: int, salt: int) -> np.ndarray:
    if not t:
        return np.zeros(bins, np.int64)
    return np.bincount(tb.by_hash("component", bins, salt)(t), weights=t["size"], minlength=bins).astype(np.int64)


# --- 7. cluster ----------------------------------------------------------------------------


def bin_members(addresses: tb.Table, labels: tb.Table) -> tb.Table:
    if not addresses:
        return {}
    keep = labels["linked"]
    out = tb.take(addresses, keep)
    out.pop("vector", None)
    out["component"] = labels["component"][keep]
    return out


def pairs_with_labels(pairs: tb.Table, labels: tb.Table) -> tb.Table:
    """The range's scored pairs with the component of a (whose range this is)."""
    if not pairs:
        return {}
    out = dict(pairs)
    out["component_a"] = labels["component"][np.searchsorted(labels["node"], pairs["a"])]
    return out


def pairs_inside(pairs: tb.Table) -> tb.Table:
    """The pairs whose two addresses are in one component (`component`: b's)."""
    if not pairs:
        return {}
    return tb.take(pairs, pairs["component_a"] == pairs["component"])


def cluster_bin(members: tb.Table, pairs: tb.Table, engine, dedup_model, merge: str, threshold: float,
                cap: int) -> tb.Table:
    """Average linkage over one bin's components, by global address."""
    if not members:
        return {}
    held(tb.rows(members), cap, "clustering")
    members = sort_by(members, "address")
    address = members["address"]
    if pairs:
        local = np.stack([np.searchsorted(address, pairs["a"]), np.searchsorted(address, pairs["b"])], axis=1)
        label, probability = pairs["label"].astype(np.uint32), pairs["p"].astype(np.float32)
    else:
        local, label, probability = np.zeros((0, 2), np.int64), np.zeros(0, np.uint32), np.zeros((0, 3), np.float32)
    cluster, best, best_link, _ = dedup_model(engine).cluster(
        list(members["text"]), local.astype(np.uint32), label, probability, merge, threshold, members["region"])
    cluster = address[np.asarray(cluster, np.int64)]
    best = np.asarray(best, np.int64)
    rows_in = np.bincount(np.searchsorted(address, cluster), weights=members["rows"], minlength=len(address))
    return {"address": address, "cluster": cluster, "cluster_rows": rows_in[np.searchsorted(address, cluster)].astype(np.int64),
            "linked_best": np.where(best >= 0, address[np.maximum(best, 0)], -1),
            "linked_best_link": np.asarray(best_link, np.float32)}


# --- 8. rows out ---------------------------------------------------------------------------


def address_results(addresses: tb.Table, best: tb.Table, clustered: tb.Table) -> tb.Table:
    """Per address of a range: cluster, rows in it, best match and its link."""
    if not addresses:
        return {}
    address = addresses["address"]
    n = len(address)
    cluster, cluster_rows = address.copy(), addresses["rows"].copy()
    best_match, best_link = np.full(n, -1, np.int64), np.zeros(n, np.float32)
    if best:
        at = np.searchsorted(address, best["address"])
        best_match[at], best_link[at] = best["best"], best["best_link"]
    if clustered:
        at = np.searchsorted(address, clustered["address"])
        cluster[at], cluster_rows[at] = clustered["cluster"], clustered["cluster_rows"]
        # A link clustering scored itself wins only where it is stronger (the engine reads
        # the candidates first, then those, keeping the first of equals).
        stronger = (clustered["linked_best"] >= 0) & (
            (best_match[at] < 0) | (clustered["linked_best_link"] > best_link[at]))
        best_match[at[stronger]] = clustered["linked_best"][stronger]
        best_link[at[stronger]] = clustered["linked_best_link"][stronger]
    return {"address": address, "cluster": cluster, "cluster_rows": cluster_rows, "best": best_match,
            "best_link": best_link, "second": addresses["second"]}


def row_results(t: tb.Table) -> tb.Table:
    """Each good row of a partition: its cluster's first row, rows in the cluster, and the
    row it matches best (a copy of its address first), as the engine's dedup table says."""
    if not t:
        return t
    row, address = t["row"], t["address"]
    best_row = np.where(row != address, address, np.where(t["second"] >= 0, t["second"], t["best"]))
    score = np.where((row != address) | (t["second"] >= 0), np.float32(1.0), t["best_link"]).astype(np.float32)
    out = dict(t)
    out["best_row"], out["score"] = best_row, score
    out["wanted"] = best_row
    return out


def ids_wanted(t: tb.Table) -> tb.Table:
    """The rows whose ids this partition's rows name (their cluster's and best match's)."""
    if not t:
        return {"row": np.zeros(0, np.int64)}
    return {"row": np.unique(np.concatenate([t["cluster"], t["best_row"][t["best_row"] >= 0]]))}


def final_rows(rows: tb.Table, results: tb.Table, ids: tb.Table) -> tb.Table:
    """Per good row of a partition (by position): the columns dedup adds."""
    if not rows:
        return {"pos": np.zeros(0, np.int64)}
    results = sort_by(results, "row")  # the partition's rows, numbered in order
    id_of = np.searchsorted(ids["row"], results["cluster"])
    best = results["best_row"]
    has_best = best >= 0
    best_id = np.full(len(best), None, dtype=object)
    best_id[has_best] = ids["id"][np.searchsorted(ids["row"], best[has_best])]
    return {"pos": rows["pos"], "cluster_id": ids["id"][id_of], "cluster_size": results["cluster_rows"],
            "best_match_id": best_id, "best_match_score": np.where(has_best, results["score"], np.float32(np.nan))}


# --- the graph ---------------------------------------------------------------------------


def _threshold(engine, dedup_model, merge: str, threshold: Optional[float]) -> float:
    return dedup_model(engine).threshold(merge, threshold)


def _persist(values: list) -> list:
    return list(dask.persist(*values)) if values else values


def _total(fn, values: list):
    return dask.compute(*[dask.delayed(fn, pure=True)(v) for v in values])


def _merged(hits: list, neighbours: int) -> list:
    """Hit tables merged MERGE_FAN_IN at a time until that few are left: a range's hits
    from every shard at once would be shards x neighbours per address."""
    while len(hits) > MERGE_FAN_IN:
        hits = [dask.delayed(best_hits, pure=True)(neighbours, *hits[i:i + MERGE_FAN_IN])
                for i in range(0, len(hits), MERGE_FAN_IN)]
    return hits


def _vector_partitions(located: list, per_range: list, cap: int, neighbours: int) -> list:
    """Vector hits through coarse partitions: k-means centroids learnt on a sample of at
    most `cap` vectors, about min(cap / 2, PARTITION_ADDRESSES) addresses a partition (an
    exact search costs the square of its size) with every address in its ASSIGNMENTS
    nearest (so neighbours across a border meet), each partition searched exactly in its
    own task and cut into pieces where it outgrows the cap."""
    d = dask.delayed
    n = sum(per_range)
    k = -(-ASSIGNMENTS * n // min(cap // 2, PARTITION_ADDRESSES))
    sample = min(cap, k * KMEANS_SAMPLE_PER_CENTROID)
    samples = [d(sample_vectors, pure=True)(t, -(-sample * m // n), r) for r, (t, m) in enumerate(zip(located, per_range))]
    centroids = d(kmeans, pure=True)(k, 0, *samples).compute()
    assigned = [d(assign, pure=True)(t, centroids, ASSIGNMENTS) for t in located]
    counts = np.asarray(_total(_Then(centroid_counts, k=len(centroids)), assigned)).reshape(len(assigned), -1)
    pieces = np.maximum(1, -(-counts.sum(axis=0) // cap))
    first_piece = np.concatenate([[0], np.cumsum(pieces)[:-1]]).astype(np.int64)
    before = np.cumsum(counts, axis=0) - counts  # each centroid's members in earlier ranges
    routes = [tb.by_rank_in("centroid", first_piece, before[r], cap) for r in range(len(assigned))]
    partitions = tb.shuffle(assigned, routes, int(pieces.sum()))
    return [d(partition_hits, pure=True)(t, neighbours, cap) for t in partitions]


def _propagate(labels: list, edges: list, range_size: int) -> list:
    """Smallest node label over each component of `edges`, by rounds until none changes."""
    ranges = len(labels)
    while True:
        messages = [dask.delayed(label_messages, pure=True)(l, e) for l, e in zip(labels, edges)]
        inbox = tb.shuffle(messages, tb.by_range("dst", range_size), ranges)
        labels = _persist([dask.delayed(relax, pure=True)(l, m) for l, m in zip(labels, inbox)])
        if sum(_total(changed, labels)) == 0:
            return labels


def dedup_tasks(normalized: list, engine, dedup_model, *, cap: int, range_size: Optional[int], slots: int,
                pairs_at_once: Optional[int], neighbours: int, merge: str, threshold: Optional[float],
                on_error: str, ids_from_index: bool) -> "Tasks":
    """The job's tasks (Tasks); every one holds at most `cap` addresses."""
    d = dask.delayed
    parts = len(normalized)
    rows = _persist([d(row_table, pure=True)(nz, p) for p, nz in enumerate(normalized)])
    total = sum(_total(count, rows))
    id_buckets = max(1, -(-2 * total // cap))
    repeats = tb.shuffle(rows, tb.by_hash("id", id_buckets), id_buckets,
                         then=_Then(repeated_ids, ids_from_index=ids_from_index, on_error=on_error))
    repeats = _persist(tb.shuffle(repeats, tb.by_column("part"), parts))
    good = [d(good_rows, pure=True)(r, rep) for r, rep in zip(rows, repeats)]
    good_per_part = list(_total(count, good))
    rows_total = sum(good_per_part)
    if rows_total == 0:
        raise ValueError("no addresses to deduplicate")
    offsets = np.concatenate([[0], np.cumsum(good_per_part)[:-1]]).astype(np.int64)
    numbered_rows = _persist([d(numbered, pure=True)(g, int(o)) for g, o in zip(good, offsets)])

    # Addresses, in ranges of consecutive numbers.
    # A blocking tile holds two ranges.
    range_size = min(cap // 2, range_size or max(256, -(-rows_total // (4 * slots))))
    ranges = -(-rows_total // range_size)
    text_buckets = max(1, -(-2 * rows_total // cap))
    firsts = tb.shuffle([d(texts_of_rows, pure=True)(r) for r in numbered_rows], tb.by_hash("text", text_buckets),
                        text_buckets, then=first_rows)
    address_of_row = tb.shuffle([f[0] for f in firsts], tb.by_bounds("row", offsets), parts)
    embed = _Then(embed_range, engine=engine, dedup_model=dedup_model, cap=cap)
    located = _persist(tb.shuffle([f[1] for f in firsts], tb.by_range("address", range_size), ranges, then=embed))
    per_range = list(_total(count, located))
    n = sum(per_range)

    # Blocking: every range's addresses searched in every range (lexically, with the
    # whole file's gram counts; by vector exactly while the file is small enough for the
    # engine to, else in coarse partitions), the hits merged per range.
    grams = tb.shuffle([d(range_grams, pure=True)(t) for t in located], tb.by_hash("gram", ranges), ranges,
                       then=summed_grams)
    corpus = d(corpus_grams, pure=True)(n, *grams).persist()
    hits = [[d(lexical_tile, pure=True)(q, s, corpus, neighbours, cap) for s in located] for q in located]
    if n <= EXACT_VECTORS_UP_TO:
        for r, q in enumerate(located):
            hits[r] += [d(vector_tile, pure=True)(q, s, neighbours, i == r, cap) for i, s in enumerate(located)]
    else:
        for r, found in enumerate(tb.shuffle(_vector_partitions(located, per_range, cap, neighbours),
                                             tb.by_range("query", range_size), ranges)):
            hits[r].append(found)
    merged = [d(best_hits, pure=True)(neighbours, *_merged(h, neighbours)) for h in hits]
    merged = tb.lookup(merged, "hit", located, "address", tb.by_range("hit", range_size), ("text", "region"))
    candidates = [d(candidates_of, pure=True)(q, h) for q, h in zip(located, merged)]

    # Scoring: each range's candidates (by their first address), repeats dropped.
    score = _Then(score_range, engine=engine, dedup_model=dedup_model, merge=merge,
                  pairs_at_once=min(pairs_at_once or cap // 2, cap // 2), cap=cap)
    scored = _persist(tb.shuffle(candidates, tb.by_range("a", range_size), ranges, then=score))
    best = tb.shuffle([d(pair_ends, pure=True)(s) for s in scored], tb.by_range("x", range_size), ranges,
                      then=best_candidates)

    # Components of the links a merge can start from.
    threshold = np.float32(d(_threshold, pure=True)(engine, dedup_model, merge, threshold).compute())
    edges = _persist(tb.shuffle([d(strong_edges, pure=True)(s, threshold) for s in scored],
                                tb.by_range("src", range_size), ranges))
    labels = _propagate(_persist([d(initial_labels, pure=True)(t, e) for t, e in zip(located, edges)]), edges, range_size)
    raised = threshold
    for _ in range(MAX_SPLITS + 1):
        sizes = _persist(tb.shuffle([d(label_counts, pure=True)(l) for l in labels],
                                    tb.by_hash("component", ranges), ranges, then=component_sizes))
        giants = np.concatenate(_total(_Then(above, cap=cap), sizes))
        if len(giants) == 0:
            break
        if raised >= np.float32(1.0):
            raise ValueError(f"{len(giants)} components stay above max_task_addresses={cap} addresses even when "
                             "only links of 1.0 join them: raise max_task_addresses")
        # A component above the cap is split where its weaker links are: only links at a
        # raised threshold hold it together (pairs between the pieces are not merged).
        raised = np.float32(raised + (1.0 - raised) / 2) if raised < 0.999 else np.float32(1.0)
        inner = [d(edges_within, pure=True)(e, l, giants, raised) for e, l in zip(edges, labels)]
        labels = _propagate(_persist([d(restart_labels, pure=True)(l, giants) for l in labels]), _persist(inner),
                            range_size)

    # Components packed into bins of at most `cap` addresses, each clustered alone.
    linked = sum(int(x) for x in _total(_Then(_sum_sizes), sizes))
    bins, salt = max(1, -(-2 * linked // cap)), 0
    while np.asarray(_total(_Then(bin_sizes, bins=bins, salt=salt), sizes)).sum(axis=0).max(initial=0) > cap:
        bins, salt = -(-3 * bins // 2), salt + 1
    members = tb.shuffle([d(bin_members, pure=True)(t, l) for t, l in zip(located, labels)],
                         tb.by_hash("component", bins, salt), bins)
    with_a = [d(pairs_with_labels, pure=True)(s, l) for s, l in zip(scored, labels)]
    with_both = tb.lookup(with_a, "b", labels, "node", tb.by_range("b", range_size), ("component",))
    inside = tb.shuffle([d(pairs_inside, pure=True)(p) for p in with_both], tb.by_hash("component_a", bins, salt), bins)
    clustered = [d(cluster_bin, pure=True)(m, p, engine, dedup_model, merge, float(threshold), cap)
                 for m, p in zip(members, inside)]
    clustered = tb.shuffle(clustered, tb.by_range("address", range_size), ranges)
    results = [d(address_results, pure=True)(t, b, c) for t, b, c in zip(located, best, clustered)]

    # Back to the rows.
    fields = ("cluster", "cluster_rows", "best", "best_link", "second")
    per_row = tb.lookup(address_of_row, "address", results, "address", tb.by_range("address", range_size), fields)
    per_row = [d(row_results, pure=True)(t) for t in per_row]
    ids = tb.lookup([d(ids_wanted, pure=True)(t) for t in per_row], "row", numbered_rows, "row",
                    tb.by_bounds("row", offsets), ("id",))
    out = [d(final_rows, pure=True)(r, t, i) for r, t, i in zip(numbered_rows, per_row, ids)]
    return Tasks(repeats=repeats, columns=out, located=located, scored=scored)


@dataclass
class Tasks:
    """A sharded dedup's delayed results, one per partition or per address range."""

    repeats: list  # per partition: its rows whose id an earlier row has (pos, why)
    columns: list  # per partition: the columns dedup adds to its good rows (final_rows)
    located: list  # per range: its addresses (address, text, vector, ...)
    scored: list  # per range: the candidate pairs whose first address it holds, scored


def _sum_sizes(t: tb.Table) -> int:
    return int(t["size"].sum()) if t else 0


class _Then:
    """A stage function with its fixed arguments, picklable for the workers."""

    def __init__(self, fn, **kwargs):
        self.fn, self.kwargs = fn, kwargs
        self.__name__ = fn.__name__  # what Dask names its tasks after

    def __call__(self, t):
        return self.fn(t, **self.kwargs)
