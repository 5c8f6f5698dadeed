"""The one nesting limit of the JSON values chatcodec walks in Python.

msgspec reads and writes JSON in C, as deep as the interpreter's recursion
limit lets it. What chatcodec itself walks (a tool's parameter schema above
all: frozen, closed, converted between dialects; a tool call's arguments
when they are cleaned or checked) is walked by recursive Python functions,
which take two or three frames a level. So every such value is checked once,
where it enters (the decode of a body, the constructor of the record that
holds it), against :data:`MAX_DEPTH`: by :func:`check_depth`, a loop, or by
the first walk itself counting its depth (a decoder's walk of a schema
before the definition is built). The recursive walks behind that check never
see a value deeper than the limit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

import msgspec

from ._errors import DepthError
from ._paths import key_step

__all__ = ["MAX_DEPTH", "check_depth", "refuses_depth", "too_deep"]

MAX_DEPTH = 128
"""How many arrays and objects a walked value may nest, the outermost counted."""


_NESTED = (dict, list, tuple, Mapping)  # dict first: the usual container is found at once


def check_depth(value: Any, path: str, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`DepthError` naming ``path`` if ``value`` nests deeper than ``limit``.

    A loop over an explicit stack, so any depth is measured without recursion;
    it stops at the first container past the limit.
    """
    if not isinstance(value, _NESTED):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > limit:
            raise DepthError(limit, path)
        for item in node.values() if isinstance(node, Mapping) else node:
            if isinstance(item, _NESTED):
                push((item, depth + 1))


# -- values a caller built, found too deep where they are written ----------------------
#
# A record a caller builds (its ``extras``) is not walked when it is made: what a
# decoder built is checked where it was read, and walking every record again would
# cost every call. Such a value is written by msgspec, in C, which nests as deep as
# the interpreter's recursion limit lets it and then raises RecursionError. The
# encoders turn that into a DepthError (``refuses_depth``): only then, the records
# given are walked, by a loop, for the
# value past the limit, and the error names where it is.


def _nesting(value: Any) -> int:
    """How deep ``value`` nests arrays and objects (0 for a scalar), by a loop."""
    if not isinstance(value, _NESTED):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        deepest = max(deepest, depth)
        for item in node.values() if isinstance(node, Mapping) else node:
            if isinstance(item, _NESTED):
                push((item, depth + 1))
    return deepest


def too_deep(*values: Any) -> DepthError | None:
    """The error naming the value nested past :data:`MAX_DEPTH` in ``values``, if any.

    ``values`` are records (their fields walked, records within records too),
    or a JSON object (its members named). The deepest such value is named, by
    its path in the record (``$.messages[0].extras``); ``None`` if none is past
    the limit.
    """
    found: tuple[int, str] | None = None
    stack: list[tuple[Any, str]] = []
    for value in values:
        if isinstance(value, Mapping):
            stack.extend((item, "$" + key_step(key)) for key, item in value.items())
        else:
            stack.append((value, "$"))
    while stack:
        node, path = stack.pop()
        if isinstance(node, msgspec.Struct):
            stack.extend((getattr(node, name), f"{path}.{name}") for name in node.__struct_fields__)
            continue
        if isinstance(node, list | tuple) and any(isinstance(i, msgspec.Struct) for i in node):
            stack.extend((item, f"{path}[{n}]") for n, item in enumerate(node))
            continue
        depth = _nesting(node)
        if depth > MAX_DEPTH and (found is None or depth > found[0]):
            found = (depth, path)
    return DepthError(MAX_DEPTH, found[1]) if found is not None else None


P = ParamSpec("P")
R = TypeVar("R")


def refuses_depth(write: Callable[P, R]) -> Callable[P, R]:
    """``write`` raising :class:`DepthError` for a value too deep to write, never RecursionError.

    For the public encoders: the values they are given are walked only when
    msgspec could not write one (see above). A RecursionError with no value
    past the limit (a caller's own stack near the recursion limit) stays what
    it is.
    """

    @functools.wraps(write)
    def written(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return write(*args, **kwargs)
        except RecursionError:
            error = too_deep(*args, *kwargs.values())
            if error is None:
                raise
        raise error from None

    return written
