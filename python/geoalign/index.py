"""Search: a reference base of addresses, looked up by lexical and vector retrieval and reranked."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import _geoalign
from ._inputs import Id, address_list, check_ids
from ._models import model_dir


def _at_least(name: str, value: int, least: int) -> int:
    if value < least:
        raise ValueError(f"{name} must be at least {least}, not {value}")
    return value


class Index:
    """A reference base of addresses to search, as ``geoalign index`` builds and ``geoalign search`` reads.

    Make one with :meth:`build` or :meth:`open`. Searches may run from several Python
    threads at once (the GIL is released); :meth:`add` waits for them and they for it.

    An Index pickles as its folder and options, and unpickles by opening the folder again
    (in a multiprocessing or Dask worker); one with records not yet saved refuses, rather
    than arrive without them.
    """

    def __init__(self, index: Any, path: Path | None, model: str | None = None, precision: str = "auto",
                 head: str = "rerank", aliases: str | None = None) -> None:
        """Use :meth:`build` or :meth:`open`."""
        self._index = index
        self._path = path
        self._options = (model, precision, head, aliases)
        self._unsaved = False

    def __reduce__(self) -> tuple:
        if self._path is None or self._unsaved:
            raise TypeError("an Index pickles as its folder, and this one has records not saved there: save() it first")
        return (Index.open, (str(self._path), *self._options))

    @classmethod
    def build(
        cls,
        addresses: Iterable[str],
        ids: Iterable[Id] | None = None,
        model: str | Path | None = None,
        path: str | Path | None = None,
        precision: str = "auto",
        head: str = "rerank",
        links: int = 16,
        build_candidates: int = 200,
        aliases: str | Path | None = None,
    ) -> Index:
        """Indexes addresses, as ``geoalign index build``, and writes the index to ``path`` if given.

        Args:
            addresses: any iterable of str.
            ids: one id per address (str, or int made str); None: each is named by its
                record number (0, 1, ...).
            model: the model folder whose embeddings the index holds; None: the bundled model.
            path: a folder to write the index to; it must not hold one already.
            precision: of the embeddings: ``"fp32"``, ``"bf16"``, ``"int8"`` or ``"auto"``.
            head: the pair scorer that reranks searches: ``"rerank"`` (the folder's rerank
                head, fast) or ``"match"`` (the cross-encoder, as ``score``).
            links: HNSW graph degree (M), at least 4.
            build_candidates: HNSW ef_construction, at least 10.
            aliases: a file of your own names for places (``short<TAB>full`` per line) that
                the reranking reads beside the model's, as in :class:`Matcher`.

        Raises:
            ValueError: naming the first bad address or id.
            GeoalignError: a bad model folder or option.
        """
        if path is not None and (Path(path) / _geoalign.INDEX_MANIFEST).exists():
            raise _geoalign.GeoalignError(f"{path} already holds an index (use Index.open and add, or another path)")
        index = cls(
            _geoalign.Index.create(
                model_dir(model),
                precision,
                head,
                _at_least("links", links, 4),
                _at_least("build_candidates", build_candidates, 10),
                "" if aliases is None else str(aliases),
            ),
            None if path is None else Path(path),
            None if model is None else str(model),
            precision,
            head,
            None if aliases is None else str(aliases),
        )
        index.add(addresses, ids)
        if path is not None:
            index.save()
        return index

    @classmethod
    def open(
        cls, path: str | Path, model: str | Path | None = None, precision: str = "auto", head: str = "rerank",
        aliases: str | Path | None = None,
    ) -> Index:
        """Opens an index folder, checking every file.

        Args:
            path: the folder ``build`` (or ``geoalign index build``) wrote.
            model: the model folder to search with; None: the one the index was built
                with. Its weights must be those the index was built with.
            precision: ``"fp32"``, ``"bf16"``, ``"int8"`` or ``"auto"``.
            head: ``"rerank"`` or ``"match"``, as in :meth:`build`.
            aliases: your own names for places, as in :meth:`build`.

        Raises:
            GeoalignError: a missing, truncated or foreign file, or a model with other weights.
        """
        aliases = None if aliases is None else str(aliases)
        return cls(_geoalign.Index.open(str(path), "" if model is None else str(model), precision, head, aliases or ""),
                   Path(path), None if model is None else str(model), precision, head, aliases)

    def add(self, addresses: Iterable[str], ids: Iterable[Id] | None = None) -> None:
        """Adds addresses, as ``geoalign index add``; :meth:`save` writes them out.

        Nothing is added when an address or id is bad, or an id is already in the index.
        Ids and errors as in :meth:`build`.
        """
        texts = address_list(addresses)
        self._index.add(texts, check_ids(ids, len(texts)))
        self._unsaved = True

    def save(self, path: str | Path | None = None) -> None:
        """Writes the index to ``path``; None: the folder it was built into or opened from."""
        if path is None and self._path is None:
            raise ValueError("this index has no folder yet: give save a path")
        if path is not None:
            self._path = Path(path)
        self._index.save(str(self._path))
        self._unsaved = False

    def search(
        self,
        queries: Iterable[str],
        k: int = 10,
        rerank: int = 50,
        candidates: int = 100,
        region: str | None = None,
        region_from_query: bool = False,
        ordered: bool = False,
    ) -> list[list[dict[str, Any]]]:
        """Looks addresses up, as ``geoalign search``: one list of hits per query, in query order.

        Each hit is ``{"id", "text", "score", "label"}``, exactly as in the CLI's
        ``"results"``: ``score`` is the pair scorer's P(exact_match) for reranked hits
        (which alone carry a ``label``), the fused retrieval score for the rest.

        Args:
            queries: any iterable of str.
            k: hits per query.
            rerank: fused candidates rescored by the pair scorer; 0: none.
            candidates: candidates from each of the lexical and vector searches (never fewer than
                rerank or k).
            region: only hits in this province, city or district (``"北京市"``, ``"深圳市南山区"``; ``"南山区"`` alone is ambiguous, an error).
            region_from_query: leave out hits in other cities than the one the query names (by
                its city or a district in it); hits whose city is not known stay.
            ordered: rerank each (query, record) as given instead of in both orders (the
                default, which gives a pair the same numbers whichever comes first), as the
                CLI's ``search --ordered``: for queries shaped like CCKS's, a user's query
                against map records.

        Raises:
            ValueError: naming the first bad query (not a str, or empty).
            GeoalignError: an unknown or ambiguous region.
        """
        return self._index.search(
            queries,
            _at_least("k", k, 1),
            _at_least("rerank", rerank, 0),
            _at_least("candidates", candidates, 1),
            region or "",
            region_from_query,
            bool(ordered),
        )

    def link(
        self,
        left: Iterable[str],
        k: int = 1,
        one_to_one: bool = False,
        rerank: int = 50,
        candidates: int = 100,
        region: str | None = None,
        ordered: bool = False,
    ) -> list[list[dict[str, Any]]]:
        """Matches each left address to this index's records, as ``geoalign link --right-index``.

        One list per left address, in order, of its matches, best first: each
        ``{"id", "text", "label", "score", "p_not_match", "p_partial_match", "p_exact_match"}``
        with ``score`` the expected degree of match (P(exact) + 0.5 x P(partial)), as the CLI
        writes it. A match is a reranked record the pair scorer does not call not_match; a
        left address with none gets an empty list.

        Args:
            left: any iterable of str.
            k: matches per left address at most.
            one_to_one: each record matches one left address at most (greedily, highest
                P(exact_match) first).
            rerank: candidates per left address rescored by the pair scorer, at least k.
            candidates: candidates from each of the lexical and vector searches.
            region: only records in this province, city or district.
            ordered: read each (left, record) pair as given, as the CLI's ``--ordered``.

        Raises:
            ValueError: naming the first bad address, or a bad option.
            GeoalignError: an unknown or ambiguous region.
        """
        if rerank < k:
            raise ValueError(f"rerank ({rerank}) must be at least k ({k}): every match is a rescored candidate")
        return self._index.link(
            left,
            _at_least("k", k, 1),
            bool(one_to_one),
            rerank,
            _at_least("candidates", candidates, 1),
            region or "",
            bool(ordered),
        )

    def __len__(self) -> int:
        """Addresses in the index."""
        return len(self._index)

    @property
    def path(self) -> Path | None:
        """The folder the index was last built into, opened from or saved to; None if never."""
        return self._path

    @property
    def model_dir(self) -> Path:
        """The model folder the index's embeddings came from, as recorded when it was built."""
        return Path(self._index.model_dir)
