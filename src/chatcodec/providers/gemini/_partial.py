"""Vertex AI's streamed function-call arguments: values by JSON path, and their text.

A call streamed with ``streamFunctionCallArguments`` gives its arguments as
values at JSON paths (strings in pieces). :func:`_apply` puts each value into
the call's ``args`` object; :class:`_Writer` writes the JSON text of that
object as it grows, which is what the argument deltas carry.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

__all__ = ["_Streamed", "_Writer", "_apply", "_path"]

_encode = msgspec.json.Encoder().encode
_MISSING: Any = object()
_PATH_STEP = re.compile(
    r"""\.([^.\[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]"""
)


def _path(text: str) -> tuple[str | int, ...]:
    """A JSON path (``$.a.b[0]``, ``$['a b']``) as its steps; one key if it does not parse."""
    steps: list[str | int] = []
    at = 1 if text.startswith("$") else 0
    while at < len(text):
        match = _PATH_STEP.match(text, at)
        if match is None:
            return (text,)
        name, number, single, double = match.groups()
        if number is not None:
            steps.append(int(number))
        else:
            steps.append(name if name is not None else (single if single is not None else double))
        at = match.end()
    return tuple(steps) if steps else (text,)


class _Writer:
    """The JSON text of an ``args`` object built from values by path, as it grows.

    Each value's text is written as it comes; containers open and close as
    the paths move through them. A path that goes back to something already
    closed cannot be written in order: the text then stops growing (the
    call's final arguments still hold every value).
    """

    __slots__ = ("broken", "done", "stack", "string")

    def __init__(self) -> None:
        self.stack: list[list[Any]] = []  # [path, is a list, members so far]
        self.string: tuple[Any, ...] | None = None  # the string still open
        self.done: set[tuple[Any, ...]] = set()
        self.broken = False

    def put(self, path: tuple[Any, ...], value: Any, is_string: bool) -> str:
        if self.broken:
            return ""
        out: list[str] = []
        if self.string is not None:
            if is_string and path == self.string:
                return _encode(value)[1:-1].decode()
            out.append('"')
            self.done.add(self.string)
            self.string = None
        if not self.stack:
            self.stack.append([(), False, 0])
            out.append("{")
        # Close the containers the path is not inside.
        while len(self.stack) > 1:
            top = self.stack[-1][0]
            if len(top) < len(path) and path[: len(top)] == top:
                break
            out.append("]" if self.stack.pop()[1] else "}")
            self.done.add(top)
        for depth in range(len(self.stack[-1][0]), len(path)):
            container = self.stack[-1]
            step = path[depth]
            child = path[: depth + 1]
            if container[1] != (type(step) is int) or child in self.done:
                self.broken = True
                return "".join(out)
            if container[1]:
                if step < container[2]:
                    self.broken = True
                    return "".join(out)
                while container[2] < step:  # a gap in a list is null
                    out.append(",null" if container[2] else "null")
                    container[2] += 1
                out.append("," if container[2] else "")
            else:
                out.append(("," if container[2] else "") + _encode(step).decode() + ":")
            container[2] += 1
            if depth < len(path) - 1:
                is_list = type(path[depth + 1]) is int
                self.stack.append([child, is_list, 0])
                out.append("[" if is_list else "{")
        if is_string:
            out.append(_encode(value)[:-1].decode())
            self.string = path
        else:
            out.append(_encode(value).decode())
            self.done.add(path)
        return "".join(out)

    def close(self) -> str:
        if self.broken:
            return ""
        if not self.stack:
            return "{}"
        out = '"' if self.string is not None else ""
        return out + "".join("]" if entry[1] else "}" for entry in reversed(self.stack))


def _apply(args: dict[str, Any], path: tuple[Any, ...], value: Any, is_string: bool) -> None:
    """Put one streamed value into ``args``; a string adds to the string there."""
    node: Any = args
    for depth, step in enumerate(path):
        last = depth == len(path) - 1
        fresh: Any = value if last else ([] if type(path[depth + 1]) is int else {})
        if type(node) is dict and type(step) is str:
            here = node.get(step, _MISSING)
        elif type(node) is list and type(step) is int:
            node.extend([None] * (step + 1 - len(node)))
            here = node[step]
        else:
            return  # a path through a value of another shape: nothing to put it in
        if last:
            node[step] = here + value if is_string and type(here) is str else value
            return
        if type(here) is not type(fresh):
            node[step] = here = fresh
        node = here


class _Streamed:
    """A function call whose arguments arrive in pieces."""

    __slots__ = ("args", "call", "fragments", "name", "position", "slot", "state", "writer")

    def __init__(self, slot: int, position: int, call: dict[str, Any]) -> None:
        self.slot = slot
        self.position = position
        self.call = call  # the merged functionCall object
        self.name = call.get("name")
        self.args: dict[str, Any] = {}
        call["args"] = self.args
        self.fragments: list[str] = []
        self.writer = _Writer()
        self.state = "open"  # "closed" when the stream says so, "cut" if it never did

    def cut(self) -> tuple[str, str]:
        # Cut off before any value came is still cut off: no call an agent could run.
        return "".join(self.fragments), "arguments are truncated"
