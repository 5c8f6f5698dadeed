"""Converse ``citationsContent`` <-> a :class:`~chatcodec.TextPart` with citations.

A ``citationsContent`` block holds generated text (``content``, one
``{"text"}``) and what it cites (``citations``), each citation with a
``location`` of one kind (``documentChar``, ``documentPage``,
``documentChunk``, ``searchResultLocation``, ``web``), a ``title``, the
quoted ``sourceContent`` and a search result's ``source``. Like Anthropic,
Bedrock cites a whole block: a part whose citations have spans is written as
several blocks, cut where the spans start and end. A block of another shape
stays an :class:`~chatcodec.OpaquePart`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._content import Citation, CitationKind, TextPart
from ..._frozen import FrozenMap
from .._cite import lose_fields, pieces, read_fields, wire_fields
from .._wire import Encoding, as_kept, fill

NAME = "bedrock"

_DOCUMENT = FrozenMap({"documentIndex": "document", "start": "source_start", "end": "source_end"})
_LOCATIONS: Mapping[str, tuple[CitationKind, Mapping[str, str]]] = FrozenMap(
    {
        "documentChar": ("char", _DOCUMENT),
        "documentPage": ("page", _DOCUMENT),
        "documentChunk": ("block", _DOCUMENT),
        "searchResultLocation": (
            "search_result",
            FrozenMap(
                {"searchResultIndex": "document", "start": "source_start", "end": "source_end"}
            ),
        ),
        "web": ("url", FrozenMap({"url": "url"})),
    }
)
_CARRIED = frozenset({"start", "end", "title", "quote"})  # a span by cutting the text
_KEYS: Mapping[str, str] = FrozenMap({kind: key for key, (kind, _) in _LOCATIONS.items()})


def read_citation(wire: Any) -> Citation | None:
    """One Converse citation; None when its location is not one of the table's."""
    if type(wire) is not dict:
        return None
    location = wire.get("location")
    if type(location) is not dict or len(location) != 1:
        return None
    ((key, inner),) = location.items()
    found = _LOCATIONS.get(key)
    if found is None or type(inner) is not dict:
        return None
    kind, table = found
    fields, left = read_fields(inner, table)
    rest: dict[str, Any] = {}
    for name, value in wire.items():
        if name == "location":
            if left:
                rest["location"] = {key: left}
        elif name == "title" and type(value) is str:
            fields["title"] = value
        elif name == "source" and type(value) is str and kind == "search_result":
            fields["url"] = value
        elif name == "sourceContent" and _quote(value) is not None:
            fields["quote"] = _quote(value)
        else:
            rest[name] = value
    return Citation(kind, **fields, extras={NAME: as_kept(rest)} if rest else None)


def _quote(value: Any) -> str | None:
    if type(value) is list and len(value) == 1:
        item = value[0]
        if type(item) is dict and len(item) == 1 and type(item.get("text")) is str:
            text: str = item["text"]
            return text
    return None


def read_citations(wire: Any) -> tuple[Citation, ...] | None:
    """A list of Converse citations; None unless each one is read."""
    if type(wire) is not list or not wire:
        return None
    out = []
    for item in wire:
        citation = read_citation(item)
        if citation is None:
            return None
        out.append(citation)
    return tuple(out)


def cited_part(body: Any) -> TextPart | None:
    """The part of a ``citationsContent`` body of the usual shape, else None."""
    if type(body) is not dict or body.keys() != {"content", "citations"}:
        return None
    content = body["content"]
    if type(content) is not list or len(content) != 1:
        return None
    item = content[0]
    if type(item) is not dict or item.keys() != {"text"} or type(item["text"]) is not str:
        return None
    citations = read_citations(body["citations"])
    if citations is None:
        return None
    return TextPart(item["text"], citations)


def write_citation(citation: Citation, enc: Encoding, path: str) -> dict[str, Any] | None:
    """A Converse citation (its span aside), or None when it is lost."""
    own = enc.own(citation.extras, path)
    key = _KEYS.get(citation.kind)
    if key is None:
        what = "tool results" if citation.kind == "tool" else "stored files"
        enc.lose(path, f"bedrock cites documents, search results and web pages, not {what}")
        return None
    table = _LOCATIONS[key][1]
    inner = wire_fields(citation, table)
    kept = own.get("location")
    if type(kept) is dict and type(kept.get(key)) is dict:
        inner = fill(inner, kept[key])
    if citation.kind != "url" and not {"source_start", "source_end", "document"} <= {
        table[k] for k in inner if k in table
    }:
        enc.lose(path, "bedrock needs a document citation's index and range")
        return None
    carried = _CARRIED | frozenset(table.values())
    lose_fields(
        enc, citation, path, carried | {"url"} if key == "searchResultLocation" else carried
    )
    out: dict[str, Any] = {}
    if citation.title is not None:
        out["title"] = citation.title
    if citation.url is not None and citation.kind == "search_result":
        out["source"] = citation.url
    if citation.quote is not None:
        out["sourceContent"] = [{"text": citation.quote}]
    out["location"] = {key: inner}
    return fill(out, own)


def cited_blocks(part: TextPart, enc: Encoding, path: str) -> list[Any]:
    """The blocks of a part with citations: ``citationsContent`` where cited, text elsewhere."""
    citations = part.citations
    wires = [
        write_citation(citation, enc, f"{path}.citations[{k}]")
        for k, citation in enumerate(citations)
    ]
    if all(c.start is None for c in citations):
        cut = [(part.text, list(range(len(citations))))]
    else:
        cut = pieces(part.text, citations)
    blocks: list[Any] = []
    for text, covering in cut:
        found = [wire for k in covering if (wire := wires[k]) is not None]
        if found:
            blocks.append({"citationsContent": {"content": [{"text": text}], "citations": found}})
        elif text:
            blocks.append({"text": text})
    return blocks
