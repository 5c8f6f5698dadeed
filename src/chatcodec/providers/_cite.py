"""What every family's citations share: reading a wire object's fields, the spans, losses.

A family reads its citations into :class:`~chatcodec.Citation` with
:func:`read_fields` (one table per wire type: wire key -> canonical field),
and writes them back from the same table; a key the table does not map, or a
value of a type the canonical field does not take, stays in the citation's
``extras`` under the family's name and is written back where it was.

Spans: a canonical span counts characters of its part's text. Anthropic and
Bedrock cite a whole text block: :func:`pieces` cuts a part's text where its
citations' spans start and end, each piece with the citations covering it.
Gemini counts UTF-8 bytes: :func:`char_offset` and :func:`byte_offset`
convert.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from .._content import Citation, TextPart
from ._wire import Encoding, as_kept

__all__ = [
    "CITATION_FIELDS",
    "lose_citations",
    "lose_fields",
    "pieces",
    "read_fields",
    "wire_fields",
]

_ORDER = (
    "start",
    "end",
    "quote",
    "url",
    "title",
    "document",
    "file_id",
    "source_start",
    "source_end",
    "source_id",
)
CITATION_FIELDS = frozenset(_ORDER)
_INTS = frozenset({"start", "end", "document", "source_start", "source_end"})


def read_fields(
    wire: Mapping[str, Any], table: Mapping[str, str], skip: frozenset[str] = frozenset()
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The canonical fields ``table`` maps from ``wire``, and the keys left (as kept).

    A value the canonical field does not take (a ``null``, a string for an
    index, a negative index) is left, to be written back as sent. Keys in
    ``skip`` (the tag) are neither mapped nor left.
    """
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in wire.items():
        name = table.get(key)
        if name is not None and name not in fields and _takes(name, value):
            fields[name] = value
        elif key not in skip:
            rest[key] = value
    start, end = fields.get("start"), fields.get("end")
    if end is not None and (start is None or end < start):
        # Not a span the canonical form holds: kept as sent.
        for key, name in table.items():
            if name in ("start", "end") and key in wire:
                rest[key] = wire[key]
                fields.pop(name, None)
    return fields, as_kept(rest) if rest else None


def _takes(name: str, value: Any) -> bool:
    if name in _INTS:
        return type(value) is int and value >= 0
    return type(value) is str


def wire_fields(citation: Citation, table: Mapping[str, str]) -> dict[str, Any]:
    """The wire keys of ``table`` that ``citation`` has a value for, in the table's order."""
    out: dict[str, Any] = {}
    for key, name in table.items():
        value = getattr(citation, name)
        if value is not None and key not in out:
            out[key] = value
    return out


def lose_fields(enc: Encoding, citation: Citation, path: str, carried: frozenset[str]) -> None:
    """Report each field of ``citation`` that is set and that the target does not carry."""
    for name in _ORDER:
        if name not in carried and getattr(citation, name) is not None:
            enc.lose(f"{path}.{name}", f"{enc.provider} has no place for a citation's {name}")


def lose_citations(enc: Encoding, part: TextPart, path: str, reason: str | None = None) -> None:
    """Report each citation of ``part`` as lost (a target that has no citations)."""
    why = reason or f"{enc.provider} has no citations"
    for k in range(len(part.citations)):
        enc.lose(f"{path}.citations[{k}]", why)


def pieces(text: str, citations: tuple[Citation, ...]) -> list[tuple[str, list[int]]]:
    """``text`` cut where spans start and end: each piece, and the citations covering it.

    A citation without a span covers every piece; one with an empty span (a
    point, as a Responses file citation) the piece that ends there (the first
    one if at 0). Every piece of ``text`` is given, cited or not.
    """
    size = len(text)
    cuts = {0, size}
    for c in citations:
        if c.start is not None:
            cuts.add(min(c.start, size))
            if c.end is not None:
                cuts.add(min(c.end, size))
    bounds = sorted(cuts)
    if len(bounds) == 1:
        bounds = [0, 0]  # empty text: one empty piece
    out: list[tuple[str, list[int]]] = []
    for a, b in itertools.pairwise(bounds):
        covering = []
        for k, c in enumerate(citations):
            if c.start is None:
                covering.append(k)
                continue
            start = min(c.start, size)
            end = min(c.end if c.end is not None else c.start, size)
            if (start <= a and b <= end and a < b) or (
                start == end and (end == b or (end == 0 and a == 0))
            ):
                covering.append(k)
        out.append((text[a:b], covering))
    return out


def char_offset(text: str, byte: int) -> int | None:
    """The character index of UTF-8 byte offset ``byte`` in ``text``.

    None when ``byte`` is past the end or inside a character.
    """
    data = text.encode("utf-8", "surrogatepass")
    if byte > len(data):
        return None
    head = data[:byte]
    try:
        return len(head.decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError:
        return None


def byte_offset(text: str, char: int) -> int:
    """The UTF-8 byte offset of character index ``char`` in ``text``."""
    return len(text[:char].encode("utf-8", "surrogatepass"))
