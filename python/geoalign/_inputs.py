"""Checks on record ids, shared by :class:`geoalign.Index` and :func:`geoalign.dedup`."""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Union

Id = Union[str, int]


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
