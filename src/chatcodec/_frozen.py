"""Read-only lookup tables: nothing module-level changes during a call.

A module's tables (finish reasons by wire name, a family's key spellings...)
are read on every decode. :class:`FrozenMap` is a ``dict`` that refuses every
change, so a table is read at the speed of a dict (a lookup in C, where a
``types.MappingProxyType`` adds a call) and no caller can change it for the
next one.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

__all__ = ["FrozenMap"]

K = TypeVar("K")
V = TypeVar("V")

_RULE = "a module's lookup table cannot be changed"


def _refuse(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_RULE)


class FrozenMap(dict[K, V]):
    """A ``dict`` that refuses changes: a module-level table, shared by every call."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[type[FrozenMap[K, V]], tuple[dict[K, V]]]:
        return (FrozenMap, (dict(self),))
