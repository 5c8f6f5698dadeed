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

from collections.abc import Mapping
from typing import Any

from ._errors import DepthError

__all__ = ["MAX_DEPTH", "check_depth"]

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
