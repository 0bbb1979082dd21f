"""Checks on record ids, shared by :class:`geoalign.Index` and :func:`geoalign.dedup`."""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Union

Id = Union[str, int]


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
        if isinstance(value, Integral) and not isinstance(value, bool):
            value = str(int(value))
        elif not isinstance(value, str):
            raise ValueError(f"ids[{i}] is not a str or int (got {type(value).__name__})")
        if not value:
            raise ValueError(f"ids[{i}] is empty")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"ids[{i}] is not valid UTF-8: {e}") from None
        if value in first_seen:
            raise ValueError(f"ids[{i}] {value!r} repeats ids[{first_seen[value]}]")
        first_seen[value] = i
        out.append(value)
    if len(out) != count:
        raise ValueError(f"{len(out)} ids for {count} addresses")
    return out
