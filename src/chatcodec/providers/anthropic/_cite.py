"""Anthropic's text-block ``citations`` <-> :class:`~chatcodec.Citation`.

Anthropic cites a whole text block: a citation read has no span; a part
whose citations have spans is written as several text blocks, cut where the
spans start and end (:func:`~chatcodec.providers._cite.pieces`). A list
holding a citation of a type not in the table is kept as sent, in the
block's extras.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._content import Citation, CitationKind
from ..._frozen import FrozenMap
from .._cite import lose_fields, read_fields, wire_fields
from .._wire import Encoding, fill

NAME = "anthropic"

_DOCUMENT = FrozenMap(
    {"cited_text": "quote", "document_index": "document", "document_title": "title"}
)
# wire type -> (canonical kind, wire key -> canonical field); the order is the wire's.
_TYPES: Mapping[str, tuple[CitationKind, Mapping[str, str]]] = FrozenMap(
    {
        "char_location": (
            "char",
            FrozenMap(
                {
                    **_DOCUMENT,
                    "start_char_index": "source_start",
                    "end_char_index": "source_end",
                    "file_id": "file_id",
                }
            ),
        ),
        "page_location": (
            "page",
            FrozenMap(
                {
                    **_DOCUMENT,
                    "start_page_number": "source_start",
                    "end_page_number": "source_end",
                    "file_id": "file_id",
                }
            ),
        ),
        "content_block_location": (
            "block",
            FrozenMap(
                {
                    **_DOCUMENT,
                    "start_block_index": "source_start",
                    "end_block_index": "source_end",
                    "file_id": "file_id",
                }
            ),
        ),
        "search_result_location": (
            "search_result",
            FrozenMap(
                {
                    "cited_text": "quote",
                    "source": "url",
                    "title": "title",
                    "search_result_index": "document",
                    "start_block_index": "source_start",
                    "end_block_index": "source_end",
                }
            ),
        ),
        "web_search_result_location": (
            "url",
            FrozenMap({"cited_text": "quote", "url": "url", "title": "title"}),
        ),
    }
)
_WIRE_TYPE: Mapping[str, str] = FrozenMap({kind: wire for wire, (kind, _) in _TYPES.items()})
_TAG = frozenset({"type"})
_SPAN = frozenset({"start", "end"})  # written by cutting the text into blocks

# What each kind needs to be written (beside its own keys kept from Anthropic).
_NEEDS: Mapping[str, tuple[str, ...]] = FrozenMap(
    {
        "char": ("document", "source_start", "source_end"),
        "page": ("document", "source_start", "source_end"),
        "block": ("document", "source_start", "source_end"),
        "search_result": ("document", "url", "source_start", "source_end"),
        "url": ("url",),
    }
)
NO_FILE = "anthropic cites documents, search results and web pages, not stored files"
NO_TOOL = "anthropic cites documents, search results and web pages, not tool results"
NOT_ITS_OWN = "anthropic takes back only the web search citations it made (encrypted_index)"


def read_citations(wire: Any) -> tuple[Citation, ...] | None:
    """The citations of a text block's ``citations``; None to keep the list as sent."""
    if type(wire) is not list or not wire:
        return None
    out = []
    for item in wire:
        if type(item) is not dict:
            return None
        found = _TYPES.get(item.get("type"))  # type: ignore[arg-type]
        if found is None:
            return None
        kind, table = found
        fields, rest = read_fields(item, table, _TAG)
        out.append(Citation(kind, **fields, extras={NAME: rest} if rest else None))
    return tuple(out)


def write_citation(
    citation: Citation, enc: Encoding, path: str, request: bool
) -> dict[str, Any] | None:
    """The wire form of ``citation`` (its span aside), or None when it is lost.

    A web citation needs the index Anthropic encrypted (its API and its
    clients' types require it), in a request and in a response alike.
    """
    own = enc.own(citation.extras, path)
    kind = citation.kind
    wire_type = _WIRE_TYPE.get(kind)
    if wire_type is None:
        enc.lose(path, NO_TOOL if kind == "tool" else NO_FILE)
        return None
    missing = [name for name in _NEEDS[kind] if getattr(citation, name) is None]
    table = _TYPES[wire_type][1]
    if missing and not all(key in own for key, name in table.items() if name in missing):
        enc.lose(path, f"anthropic needs the citation's {missing[0]}")
        return None
    if kind == "url" and "encrypted_index" not in own:
        enc.lose(path, NOT_ITS_OWN)
        return None
    lose_fields(enc, citation, path, _SPAN | frozenset(table.values()))
    out: dict[str, Any] = {"type": wire_type}
    out.update(wire_fields(citation, table))
    if "cited_text" not in out and "cited_text" not in own:
        out["cited_text"] = ""  # required: a citation without a quote quotes nothing
    return fill(out, own)


def write_citations(
    citations: tuple[Citation, ...], enc: Encoding, path: str, request: bool
) -> list[dict[str, Any] | None]:
    """Each citation's wire form (its span aside), None for each one lost."""
    return [
        write_citation(citation, enc, f"{path}.citations[{k}]", request)
        for k, citation in enumerate(citations)
    ]
