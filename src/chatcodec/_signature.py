"""A plain function's parameters as a type msgspec can write a schema for.

:meth:`ToolDefinition.from_function` reads the signature (names, annotations,
defaults) and the docstring: its summary, and the text of each parameter in a
numpydoc ``Parameters`` section or a Google-style ``Args:`` section. The
parameters become the fields of a generated Struct, each annotated with its
description, so the schema comes from the same generator as
:meth:`ToolDefinition.from_type`.
"""

from __future__ import annotations

import copy
import inspect
import re
import typing
from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from ._errors import ValidationError

__all__ = ["function_type", "parse_docstring"]

_SKIPPED = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
# A numpydoc section: a title line, then a line of dashes.
_NUMPY_RULE = re.compile(r"-{3,}")
# A Google-style section title: "Args:", "Returns:"...
_GOOGLE_TITLE = re.compile(r"([A-Z][A-Za-z ]*):")
_GOOGLE_PARAMS = frozenset({"Args", "Arguments", "Parameters", "Params", "Keyword Args"})
_NUMPY_PARAMS = frozenset({"Parameters", "Other Parameters", "Keyword Arguments"})
# "name : type" (numpydoc) or "name (type): text" / "name: text" (Google).
_NUMPY_ENTRY = re.compile(r"(\*{0,2}[A-Za-z_][\w, *]*?)\s*(?::.*)?")
_GOOGLE_ENTRY = re.compile(r"\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(.*)")


def function_type(function: Callable[..., Any]) -> tuple[type, str | None]:
    """A Struct type with one field per parameter of ``function``, and its summary.

    Raises
    ------
    ValidationError
        If a parameter is positional-only or an annotation cannot be resolved.
    """
    try:
        signature = inspect.signature(function)
        hints = typing.get_type_hints(function, include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        rule = f"function has no readable signature ({type(exc).__name__})"
        raise ValidationError(rule, "$.parameters") from None
    summary, described = parse_docstring(inspect.getdoc(function) or "")
    fields: list[tuple[str, Any, Any]] = []
    for position, (name, parameter) in enumerate(signature.parameters.items()):
        if parameter.kind in _SKIPPED:
            continue
        if position == 0 and name in ("self", "cls") and name not in hints:
            continue
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            rule = "positional-only parameters cannot be passed by name"
            raise ValidationError(rule, "$.parameters")
        annotation: Any = hints.get(name, Any)
        text = described.get(name)
        if text:
            annotation = Annotated[annotation, msgspec.Meta(description=text)]
        if parameter.default is inspect.Parameter.empty:
            fields.append((name, annotation, msgspec.NODEFAULT))
        else:
            fields.append((name, annotation, _default(parameter.default)))
    struct = msgspec.defstruct(
        getattr(function, "__name__", "function"),
        [(name, kind) if default is msgspec.NODEFAULT else (name, kind, default)
         for name, kind, default in fields],
        kw_only=True,
    )  # fmt: skip
    return struct, summary


def _default(value: Any) -> Any:
    """A Struct default for ``value``: mutable values are copied for each instance."""
    if isinstance(value, list | dict | set | bytearray) and value:
        return msgspec.field(default_factory=lambda: copy.deepcopy(value))
    return value


def parse_docstring(doc: str) -> tuple[str | None, dict[str, str]]:
    """The text before the first section, and each parameter's description.

    Reads numpydoc (``Parameters`` over a line of dashes) and Google style
    (``Args:`` with indented entries). Descriptions spanning several lines
    are joined with spaces.
    """
    lines = doc.expandtabs().splitlines()
    summary_end = len(lines)
    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        title = line.strip()
        if _numpy_title(lines, i):
            summary_end = min(summary_end, i)
            i += 2
            start = i
            while i < len(lines) and not _numpy_title(lines, i):
                i += 1
            if title in _NUMPY_PARAMS:
                params.update(_numpy_entries(lines[start:i]))
            continue
        match = _GOOGLE_TITLE.fullmatch(title)
        if match is not None and not line.startswith(" "):
            summary_end = min(summary_end, i)
            i += 1
            start = i
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                i += 1
            if match.group(1) in _GOOGLE_PARAMS:
                params.update(_google_entries(lines[start:i]))
            continue
        i += 1
    summary = "\n".join(lines[:summary_end]).strip()
    return summary or None, params


def _numpy_title(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a numpydoc section title (dashes under it)."""
    return (
        i + 1 < len(lines)
        and bool(lines[i].strip())
        and _NUMPY_RULE.fullmatch(lines[i + 1].strip()) is not None
    )


def _numpy_entries(lines: list[str]) -> dict[str, str]:
    """``name : type`` lines at the section's indentation, their text below them."""
    found: dict[str, str] = {}
    names: list[str] = []
    text: list[str] = []

    def flush() -> None:
        for name in names:
            found[name] = " ".join(text)

    for line in lines:
        if not line.strip():
            continue
        if not line.startswith(" "):
            flush()
            match = _NUMPY_ENTRY.fullmatch(line.strip())
            head = match.group(1) if match is not None else ""
            names = [name.strip().lstrip("*") for name in head.split(",") if name.strip()]
            text = []
        else:
            text.append(line.strip())
    flush()
    return found


def _google_entries(lines: list[str]) -> dict[str, str]:
    """Entries at the section's first indentation; deeper lines continue them."""
    found: dict[str, str] = {}
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    name: str | None = None
    text: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        match = _GOOGLE_ENTRY.fullmatch(line.strip()) if depth == indent else None
        if match is not None:
            if name is not None:
                found[name] = " ".join(text)
            name, text = match.group(1), [match.group(2)] if match.group(2) else []
        elif name is not None:
            text.append(line.strip())
    if name is not None:
        found[name] = " ".join(text)
    return found
