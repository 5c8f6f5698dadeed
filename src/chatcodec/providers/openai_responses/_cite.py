"""An ``output_text`` part's ``annotations`` <-> :class:`~chatcodec.Citation`.

``url_citation`` is a ``url`` citation with its span; ``file_citation``,
``container_file_citation`` and ``file_path`` are ``file`` citations (the
file's name as the title, a single ``index`` as an empty span at it). The
wire type, when it is not the kind's usual one, and a container's id stay in
the citation's extras. A list holding an annotation of another type is kept
as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..._content import Citation, CitationKind, TextPart
from ..._frozen import FrozenMap
from .._cite import lose_fields, read_fields, wire_fields
from .._wire import Encoding, fill

NAME = "openai-responses"

_SPAN = FrozenMap({"start_index": "start", "end_index": "end"})
_TYPES: Mapping[str, tuple[CitationKind, Mapping[str, str]]] = FrozenMap(
    {
        "url_citation": ("url", FrozenMap({**_SPAN, "url": "url", "title": "title"})),
        "file_citation": (
            "file",
            FrozenMap({"file_id": "file_id", "filename": "title", "index": "start"}),
        ),
        "container_file_citation": (
            "file",
            FrozenMap({**_SPAN, "file_id": "file_id", "filename": "title"}),
        ),
        "file_path": ("file", FrozenMap({"file_id": "file_id", "index": "start"})),
    }
)
_USUAL: Mapping[str, str] = FrozenMap({"url": "url_citation", "file": "file_citation"})
_TYPE = "~type"  # the wire type, when it is not the kind's usual one
_TAG = frozenset({"type"})
_NEEDS: Mapping[str, tuple[str, ...]] = FrozenMap(
    {
        "url_citation": ("url", "start", "end"),
        "file_citation": ("file_id", "start"),
        "container_file_citation": ("file_id", "start", "end", "container_id"),
        "file_path": ("file_id", "start"),
    }
)


def read_annotations(wire: Any) -> tuple[Citation, ...] | None:
    """The citations of an ``annotations`` list; None to keep the list as sent."""
    if type(wire) is not list or not wire:
        return None
    out = []
    for item in wire:
        if type(item) is not dict:
            return None
        kind_type = item.get("type")
        found = _TYPES.get(kind_type)  # type: ignore[arg-type]
        if found is None:
            return None
        kind, table = found
        fields, rest = read_fields(item, table, _TAG)
        if kind_type != _USUAL[kind]:
            rest = {**(rest or {}), _TYPE: kind_type}
        if table.get("index") == "start" and fields.get("end") is not None:
            return None  # a point, not a span
        out.append(Citation(kind, **fields, extras={NAME: rest} if rest else None))
    return tuple(out)


def write_annotation(
    citation: Citation, size: int, enc: Encoding, path: str
) -> dict[str, Any] | None:
    """The wire annotation of ``citation`` on a text of ``size`` characters, or None if lost."""
    own = enc.own(citation.extras, path)
    wire_type = own.get(_TYPE)
    if type(wire_type) is not str or wire_type not in _TYPES:
        wire_type = _USUAL.get(citation.kind)
    if wire_type is None:
        enc.lose(path, f"openai-responses has no annotation for a {citation.kind} citation")
        return None
    table = _TYPES[wire_type][1]
    if citation.start is None:
        # The whole text: its span, or its end for an annotation that marks a place.
        point = "index" in table
        citation = msgspec.structs.replace(
            citation, start=size if point else 0, end=None if point else size
        )
    if "index" in table and citation.end is not None and citation.end != citation.start:
        enc.lose(path + ".end", "a file annotation marks one place: the span's end is lost")
    missing = [
        name
        for name in _NEEDS[wire_type]
        if (name not in table.values() and name not in own)
        or (
            name in table.values()
            and getattr(citation, name) is None
            and not any(key in own for key, field in table.items() if field == name)
        )
    ]
    if missing:
        enc.lose(path, f"openai-responses needs the annotation's {missing[0]}")
        return None
    lose_fields(enc, citation, path, frozenset(table.values()) | {"end"})
    out: dict[str, Any] = {"type": wire_type}
    out.update(wire_fields(citation, table))
    for key, name in table.items():
        if name == "title" and key not in out and key not in own:
            out[key] = ""  # required: a source without a title (file name) has an empty one
    return fill(out, own)


def write_annotations(part: TextPart, enc: Encoding, path: str) -> list[Any]:
    """The ``annotations`` of a part's citations (those the API can take)."""
    out = []
    size = len(part.text)
    for k, citation in enumerate(part.citations):
        wire = write_annotation(citation, size, enc, f"{path}.citations[{k}]")
        if wire is not None:
            out.append(wire)
    return out
