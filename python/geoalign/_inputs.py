"""Checks on record ids, shared by :class:`geoalign.Index` and :func:`geoalign.dedup`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import TYPE_CHECKING, Any, Optional, Union

from . import _geoalign

if TYPE_CHECKING:
    import pandas as pd

Id = Union[str, int]


def bad_text(value: Any) -> Optional[str]:
    """Why a cell cannot be an address, or None. Blank is the engine's blank: spaces of
    any kind, and control and invisible characters (a zero-width space) too."""
    if not isinstance(value, str):
        return f"not a str (got {type(value).__name__})"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"not valid UTF-8 ({e.reason} at character {e.start})"
    if _geoalign.is_blank(value):
        return "empty address"
    return None


def row_name(frame: pd.DataFrame, i: int, id_column: Optional[str] = None) -> str:
    """How an error names the i-th row of a frame: by its index label, and its id where there is one."""
    label = frame.index[i]
    return f"row {label!r}" + (f' (id "{frame[id_column].iloc[i]}")' if id_column else "")


def first_bad_cell(frame: pd.DataFrame, columns: Sequence[str]) -> Optional[str]:
    """The first cell of ``columns`` that cannot be an address, as ``row 'x', column addr2:
    empty address`` (as :mod:`geoalign.dask` names them); None when every cell can. A
    Python loop: for the error path only."""
    for i, row in enumerate(zip(*(frame[c] for c in columns))):
        for column, value in zip(columns, row):
            why = bad_text(value)
            if why is not None:
                return f"{row_name(frame, i)}, column {column}: {why}"
    return None


def positive(name: str, value: Any) -> int:
    """A count that must be at least 1, as an int: a clear ValueError otherwise (a negative
    one reached the engine as a TypeError, 0 as a ValueError)."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    return int(value)


def id_text(value: object) -> tuple[str | None, str | None]:
    """A record id as str (ints, numpy's too, become str), or None and why it cannot be one:
    not a str or int, empty, or not encodable as UTF-8."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        return str(int(value)), None
    if not isinstance(value, str):
        return None, f"is not a str or int (got {type(value).__name__})"
    if not value:
        return None, "is empty"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        return None, f"is not valid UTF-8: {e}"
    return value, None


def address_list(addresses: Iterable[str], name: str = "addresses") -> list:
    """The addresses as a list; a single str (or bytes) is refused, not split into characters."""
    if isinstance(addresses, (str, bytes)):
        raise TypeError(f"{name} must be an iterable of str, not a single {type(addresses).__name__}")
    return list(addresses)


def check_ids(ids: Iterable[Id] | None, count: int) -> list[str] | None:
    """One id per address, as str: ints (numpy's too) become str; None stays None.

    Raises ValueError naming the first bad id: not a str or int, empty, not encodable as
    UTF-8, or repeating an earlier one; or when there are not ``count`` of them.
    """
    if ids is None:
        return None
    if isinstance(ids, (str, bytes)):
        raise TypeError("ids must be an iterable of str or int, not a single " + type(ids).__name__)
    out: list[str] = []
    first_seen: dict[str, int] = {}
    for i, value in enumerate(ids):
        text, why = id_text(value)
        if why is not None:
            raise ValueError(f"ids[{i}] {why}")
        if text in first_seen:
            raise ValueError(f"ids[{i}] {text!r} repeats ids[{first_seen[text]}]")
        first_seen[text] = i
        out.append(text)
    if len(out) != count:
        raise ValueError(f"{len(out)} ids for {count} addresses")
    return out
