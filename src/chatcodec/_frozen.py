"""JSON values that refuse changes: what a frozen record holds in its dicts.

A record is frozen, and so is every JSON value inside it (``metadata``,
``extras``, a tool's schema...): a :class:`FrozenDict` or :class:`FrozenList`
is a ``dict`` or ``list`` for every reader (msgspec encodes it as one, ``==``
compares it with plain ones), hashable, and changed only by building a new
one. A record built or decoded with a plain dict gets a frozen copy, once, in
its ``__post_init__``; one built from a frozen value keeps it as is.

A module's lookup tables (finish reasons by wire name, a family's key
spellings...) are read on every decode: :class:`FrozenMap` is a ``dict``
that refuses every change, read at the speed of a dict (a lookup in C,
where a ``types.MappingProxyType`` adds a call), so no call can change a
table for the next one.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

import msgspec

from ._errors import ValidationError

__all__ = [
    "FrozenDict",
    "FrozenList",
    "FrozenMap",
    "freeze",
    "freeze_fields",
    "freeze_json",
    "thaw",
]

_FROZEN = "a record's JSON values cannot be changed: build a new record"


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(_FROZEN)


class FrozenDict(dict[str, Any]):
    """A JSON object that refuses changes, so what was checked stays as checked.

    A ``dict`` for every reader (msgspec encodes it as one, ``==`` compares
    it with plain dicts), hashable, and changed only by building a new one.
    """

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A JSON array that refuses changes (see :class:`FrozenDict`)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return (FrozenList, (list(self),))


# Values that are already immutable: returned as they are, without a call.
_KEPT = frozenset({str, int, float, bool, type(None), FrozenDict, FrozenList})


def freeze(value: Any) -> Any:
    """A copy of the JSON value ``value`` in which no object or array can change."""
    if isinstance(value, dict):
        # One copy in C, then only the containers inside are replaced (their
        # own frozen copies), past the refusing __setitem__.
        frozen = FrozenDict(value)
        for key, item in value.items():
            if type(item) not in _KEPT:
                dict.__setitem__(frozen, key, freeze(item))
        return frozen
    if isinstance(value, list | tuple):
        if all(type(item) in _KEPT for item in value):
            return FrozenList(value)
        return FrozenList([item if type(item) in _KEPT else freeze(item) for item in value])
    return value


# Leaves a record's JSON may hold: JSON's own, and msgspec.Raw (JSON bytes a
# provider kept as sent).
_LEAVES = frozenset({str, bool, type(None), msgspec.Raw})
_OBJECT = "must be an object with string keys and JSON values"


def freeze_json(value: Any, path: str) -> FrozenDict:
    """``value``, a JSON object, frozen; raise unless it holds only JSON.

    What a record holds must be what its encoding can write and its decoding
    read back: text keys, and JSON values (objects, arrays, strings, numbers,
    booleans, null).

    Raises
    ------
    ValidationError
        If ``value`` is not a dict, or holds a key that is not text or a
        value that is not JSON; the path names it.
    """
    if not isinstance(value, dict):
        raise ValidationError(_OBJECT, path)
    _check_json(value, path, 0)
    if type(value) is FrozenDict:
        return value
    return freeze(value)  # type: ignore[no-any-return]


_DEPTH = 256  # msgspec's own limit on nesting


def _check_json(value: Any, path: str, depth: int) -> None:
    if depth > _DEPTH:
        raise ValidationError("nested too deeply", path)
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                raise ValidationError("keys must be strings", path)
            if type(item) not in _LEAVES:
                _check_json(item, f"{path}[...]", depth + 1)
    elif isinstance(value, list | tuple):
        for n, item in enumerate(value):
            if type(item) not in _LEAVES:
                _check_json(item, f"{path}[{n}]", depth + 1)
    elif isinstance(value, float):
        if value - value != 0.0:  # NaN and infinity, which JSON has not
            raise ValidationError("must not hold NaN or infinity", path)
    elif isinstance(value, int):  # bool is an int too
        if not -(2**63) <= value < 2**64:
            raise ValidationError("must be an integer within 64 bits", path)
    elif not isinstance(value, str | msgspec.Raw):
        raise ValidationError("must hold only JSON values", path)


def freeze_fields(record: Any, *names: str) -> None:
    """Freeze the JSON-object fields ``names`` of ``record`` (from its ``__post_init__``).

    A field that is ``None`` or already frozen is left as is; a plain dict is
    checked and replaced by its frozen copy.
    """
    for name in names:
        value = getattr(record, name)
        if value is not None and type(value) is not FrozenDict:
            msgspec.structs.force_setattr(record, name, freeze_json(value, "$." + name))


def thaw(value: Any) -> Any:
    """A plain copy (``dict`` and ``list``) of a frozen JSON value."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    return value


K = TypeVar("K")
V = TypeVar("V")

_TABLE = "a module's lookup table cannot be changed"


def _refuse_table(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_TABLE)


class FrozenMap(dict[K, V]):
    """A ``dict`` that refuses changes: a module-level table, shared by every call."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse_table
    clear = pop = popitem = setdefault = update = _refuse_table

    def __reduce__(self) -> tuple[type[FrozenMap[K, V]], tuple[dict[K, V]]]:
        return (FrozenMap, (dict(self),))
