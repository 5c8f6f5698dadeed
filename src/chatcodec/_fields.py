"""Field checks shared by the records: the slow branches of their ``__post_init__``.

A record is checked when it is built, by the same rules its decoding applies,
so that what ``encode`` writes ``decode`` reads back. The usual value passes
an exact-type test inline in the record (one comparison); only a value that
fails it comes here, to pass (a subclass of the right type) or to be refused
with the field's path.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ._errors import ValidationError

__all__ = [
    "check_choice",
    "check_datetime",
    "check_extras",
    "check_items",
    "check_number",
    "check_optional",
    "check_type",
]

_TEXT = "must be a string"


def check_type(value: object, kind: type | tuple[type, ...], path: str, rule: str) -> None:
    """Raise unless ``value`` is an instance of ``kind`` (bool is not an int here)."""
    if isinstance(value, bool) and kind is int:
        raise ValidationError(rule, path)
    if not isinstance(value, kind):
        raise ValidationError(rule, path)


def check_optional(record: object, *names: str) -> None:
    """Raise unless each field named is a string or ``None``."""
    for name in names:
        value = getattr(record, name)
        if value is not None and type(value) is not str and not isinstance(value, str):
            raise ValidationError(_TEXT, "$." + name)


def is_choice(value: object, allowed: frozenset[str]) -> bool:
    """Whether ``value`` is one of ``allowed`` (a list is none, and no TypeError)."""
    return type(value) is str and value in allowed


def check_choice(
    value: object, allowed: frozenset[str], path: str, *, required: bool = False
) -> None:
    """Raise unless ``value`` is one of ``allowed`` (or ``None``, unless ``required``)."""
    if (value is not None or required) and (not isinstance(value, str) or value not in allowed):
        raise ValidationError("must be one of " + ", ".join(sorted(allowed)), path)


def check_extras(extras: object) -> None:
    """Raise unless ``extras`` is an object (its exact-type test failed)."""
    if not isinstance(extras, dict):
        raise ValidationError("must be an object", "$.extras")


def check_items(items: tuple[Any, ...], kinds: frozenset[type], path: str, rule: str) -> None:
    """Raise unless every item of ``items`` is of one of ``kinds`` (or a subclass)."""
    for n, item in enumerate(items):
        kind = type(item)
        if kind not in kinds and not any(issubclass(kind, k) for k in kinds):
            raise ValidationError(rule, f"{path}[{n}]")


def check_number(value: object, path: str) -> None:
    """Raise unless ``value`` is a finite number (JSON has no NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError("must be a number", path)
    if isinstance(value, float) and value - value != 0.0:
        raise ValidationError("must be finite", path)


def check_datetime(value: object, path: str) -> None:
    """Raise unless ``value`` is ``None`` or a datetime."""
    if value is not None and not isinstance(value, datetime):
        raise ValidationError("must be a datetime", path)
