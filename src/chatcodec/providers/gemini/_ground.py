"""A candidate's ``groundingMetadata`` <-> the citations of its text parts.

Gemini grounds a whole candidate: ``groundingChunks`` are the sources (a
``web`` page, a ``retrievedContext`` document), ``groundingSupports`` say
which spans of the answer each set of chunks supports: a ``segment`` with
the index of the part (``partIndex``, 0 when absent) and its ``startIndex``
and ``endIndex`` counted in UTF-8 bytes of that part's text (Gemini's API
reference: "measured in bytes"), with the span's ``text``. Each (support,
chunk) pair becomes a citation on the text part, its span in characters.

Read back, the citations are written as the metadata they came from: each
keeps the index of its chunk and of its support (hints), its confidence
score, and what its chunk holds beyond the canonical fields; the chunks no
support cites and the metadata's other keys (``webSearchQueries``,
``searchEntryPoint``...) stay in the candidate's extras. A candidate whose
grounding does not fit (a span inside a character, a part that is not text,
keys this reader does not know) keeps it whole, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import Citation, TextPart
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage
from .._cite import byte_offset, char_offset, lose_fields
from .._wire import Encoding

NAME = "gemini"
KEY = "groundingMetadata"

_SUPPORT_KEYS = frozenset({"segment", "groundingChunkIndices", "confidenceScores"})
_SEGMENT_KEYS = frozenset({"partIndex", "startIndex", "endIndex", "text"})
_CHUNK = "chunk"  # a citation's own key: its chunk's keys beyond the canonical ones
_SCORE = "confidenceScore"
_AT = "~at"  # [support index, chunk index]
SHAPE = "~segment"  # how the segment spelled itself: "p" partIndex 0 sent, "s" startIndex 0
HINT = "~grounding"  # the candidate's: the number of chunks, the unused ones' places
_KINDS = FrozenMap({"web": "url", "retrievedContext": "file"})
_CARRIED = FrozenMap(
    {
        "url": frozenset({"start", "end", "url", "title"}),
        "file": frozenset({"start", "end", "url", "title", "quote"}),
    }
)
_FIELDS = FrozenMap({"uri": "url", "title": "title"})
NO_PLACE = "gemini grounds answers only: a citation in a request has no place"
NOT_GROUNDING = "gemini grounds in web pages and retrieved documents only"


def _index(value: Any) -> bool:
    return type(value) is int and value >= 0


def _chunk_citation(chunk: Any) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
    """A chunk's kind, canonical fields and the rest of its inner object."""
    if type(chunk) is not dict or len(chunk) != 1:
        return None
    ((key, inner),) = chunk.items()
    kind = _KINDS.get(key)
    if kind is None or type(inner) is not dict:
        return None
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for name, value in inner.items():
        field = _FIELDS.get(name) or ("quote" if name == "text" and kind == "file" else None)
        if field is not None and type(value) is str:
            fields[field] = value
        else:
            rest[name] = value
    return kind, fields, rest


def read_grounding(
    message: AssistantMessage | None, calls: list[bool], keep: dict[str, Any]
) -> AssistantMessage | None:
    """``message`` with the citations of ``keep``'s grounding, taken out of ``keep``.

    ``calls`` says which of the candidate's parts are calls (the others are
    its content, in order). None (``keep`` untouched) when the grounding
    does not fit.
    """
    metadata = keep.get(KEY)
    if message is None or type(metadata) is not dict:
        return None
    supports = metadata.get("groundingSupports")
    chunks = metadata.get("groundingChunks")
    if type(supports) is not list or not supports or type(chunks) is not list:
        return None
    content = message.content
    parts: list[Any] = [TextPart(content)] if type(content) is str else list(content or ())
    # The wire part each content part came from: the parts that are not calls.
    places = [j for j, call in enumerate(calls) if not call]
    if len(places) != len(parts):
        return None
    content_at = {wire: k for k, wire in enumerate(places)}
    whole = text_bounds(parts)
    found: dict[int, list[Citation]] = {}
    used: set[int] = set()
    for i, support in enumerate(supports):
        if type(support) is not dict or not support.keys() <= _SUPPORT_KEYS:
            return None
        segment, indices = support.get("segment"), support.get("groundingChunkIndices")
        scores = support.get("confidenceScores", [])
        if type(segment) is not dict or not segment.keys() <= _SEGMENT_KEYS:
            return None
        if type(indices) is not list or not indices:
            return None
        if type(scores) is not list or (scores and len(scores) != len(indices)):
            return None
        wire = segment.get("partIndex", 0)
        first: Any = segment.get("startIndex", 0)
        last: Any = segment.get("endIndex")
        if not (_index(wire) and _index(first) and _index(last)):
            return None
        if "partIndex" in segment:
            # Within the part it names.
            k = content_at.get(wire, -1)
        else:
            # Within the candidate's text: its text parts, joined.
            k = -1
            for b0, b1, at in whole:
                if b0 <= first and last <= b1 and (first < b1 or b0 == b1 == first):
                    k, first, last = at, first - b0, last - b0
                    break
        part = parts[k] if k >= 0 else None
        if type(part) is not TextPart:
            return None
        start, end = char_offset(part.text, first), char_offset(part.text, last)
        if start is None or end is None or end < start:
            return None
        if "text" in segment and segment["text"] != part.text[start:end]:
            return None
        shape = ("p" if "partIndex" in segment else "") + (
            "s" if "startIndex" in segment and segment["startIndex"] == 0 else ""
        )
        if "text" not in segment:
            shape += "t"
        for n, j in enumerate(indices):
            if type(j) is not int or not 0 <= j < len(chunks):
                return None
            read = _chunk_citation(chunks[j])
            if read is None:
                return None
            kind, fields, rest = read
            own: dict[str, Any] = {_AT: [i, j]}
            if shape:
                own[SHAPE] = shape
            if scores:
                own[_SCORE] = scores[n]
            if rest:
                own[_CHUNK] = rest
            citation = Citation(kind, start=start, end=end, **fields, extras={NAME: own})  # type: ignore[arg-type]
            found.setdefault(k, []).append(citation)
            used.add(j)
    # Kept: the metadata's other keys, and the chunks no support cites.
    left = {key: value for key, value in metadata.items() if key != "groundingSupports"}
    unused = [j for j in range(len(chunks)) if j not in used]
    if unused:
        left["groundingChunks"] = [chunks[j] for j in unused]
    else:
        del left["groundingChunks"]
    hint = {"n": len(chunks), "unused": unused}
    if left:
        keep[KEY] = left
    else:
        del keep[KEY]
    keep[HINT] = hint
    new = [
        msgspec.structs.replace(part, citations=(*part.citations, *found[k]))
        if k in found
        else part
        for k, part in enumerate(parts)
    ]
    return msgspec.structs.replace(message, content=tuple(new))


def text_bounds(parts: Sequence[Any]) -> list[tuple[int, int, int]]:
    """Each text part's UTF-8 byte range in the candidate's text, and its index."""
    out = []
    at = 0
    for k, part in enumerate(parts):
        if type(part) is TextPart:
            size = len(part.text.encode("utf-8", "surrogatepass"))
            out.append((at, at + size, k))
            at += size
    return out


def _chunk(citation: Citation, own: dict[str, Any]) -> dict[str, Any]:
    inner: dict[str, Any] = {}
    if citation.url is not None:
        inner["uri"] = citation.url
    if citation.title is not None:
        inner["title"] = citation.title
    if citation.kind == "file" and citation.quote is not None:
        inner["text"] = citation.quote
    rest = own.get(_CHUNK)
    if type(rest) is dict:
        inner.update({key: value for key, value in rest.items() if key not in inner})
    return {"web" if citation.kind == "url" else "retrievedContext": inner}


def write_grounding(
    cited: Sequence[tuple[int, int, TextPart, str]],
    kept: dict[str, Any] | None,
    hint: Any,
    enc: Encoding,
) -> dict[str, Any] | None:
    """The ``groundingMetadata`` of a candidate's cited parts, with what ``kept`` holds.

    ``cited`` holds each text part with citations: its wire part index, where
    its text begins in the candidate's (in bytes), the part and its path.
    ``hint`` is the candidate's ``~grounding`` hint.
    """
    total = hint.get("n") if type(hint) is dict else None
    unused = hint.get("unused") if type(hint) is dict else None
    rest = dict(kept) if kept else {}
    spare = rest.pop("groundingChunks", None)
    slots: dict[int, Any] = {}
    if (
        type(total) is int
        and type(unused) is list
        and type(spare) is list
        and len(unused) == len(spare)
    ):
        slots.update(zip(unused, spare, strict=True))
        spare = None
    extra: list[Any] = list(spare) if type(spare) is list else []  # chunks with no place known
    sources: dict[str, int] = {}  # a chunk's JSON -> its index, for chunks told anew
    supports: dict[Any, dict[str, Any]] = {}
    for wire, base, part, path in cited:
        for n, citation in enumerate(part.citations):
            where = f"{path}.citations[{n}]"
            own = enc.own(citation.extras, where)
            if citation.kind not in ("url", "file") or (
                citation.kind == "url" and citation.url is None
            ):
                enc.lose(where, NOT_GROUNDING)
                continue
            lose_fields(enc, citation, where, _CARRIED[citation.kind])
            chunk = _chunk(citation, own)
            at = own.get(_AT)
            group = told = None
            if type(at) is list and len(at) == 2 and _index(at[1]):
                group, told = at
            if told is not None and (told not in slots or slots[told] == chunk):
                place = told
                slots[place] = chunk
            else:
                key = msgspec.json.encode(chunk).decode()
                place = sources.get(key)
                if place is None:
                    place = -1 - len(sources)  # numbered after the known ones, below
                    sources[key] = place
                    slots[place] = chunk
            start = citation.start if citation.start is not None else 0
            end = citation.end if citation.end is not None else len(part.text)
            key2 = (group, wire, start, end) if group is not None else ("new", wire, start, end)
            support = supports.get(key2)
            if support is None:
                shaped = own.get(SHAPE)
                shape = shaped if type(shaped) is str else ""
                segment: dict[str, Any] = {}
                offset = 0
                if "p" in shape:
                    segment["partIndex"] = wire
                else:
                    offset = base  # counted in the candidate's text, as Gemini does
                first = offset + byte_offset(part.text, start)
                if first or "s" in shape:
                    segment["startIndex"] = first
                segment["endIndex"] = offset + byte_offset(part.text, end)
                if "t" not in shape:
                    segment["text"] = part.text[start:end]
                support = supports[key2] = {
                    "segment": segment,
                    "groundingChunkIndices": [],
                    "confidenceScores": [],
                    "~order": group if group is not None else 1 << 30,
                }
            support["groundingChunkIndices"].append(place)
            score = own.get(_SCORE)
            support["confidenceScores"].append(score)
    if not supports and not rest and not slots and not extra:
        return None
    # The chunks' final places: the known ones first, the new ones after them, in order.
    known = sorted(p for p in slots if p >= 0)
    order = known + sorted((p for p in slots if p < 0), reverse=True)
    renumber = {p: n for n, p in enumerate(order)}
    chunks = [slots[p] for p in order] + extra
    out = dict(rest)
    if chunks:
        out["groundingChunks"] = chunks
    written = []
    for support in sorted(supports.values(), key=lambda s: s["~order"]):
        indices = [renumber[p] for p in support["groundingChunkIndices"]]
        item: dict[str, Any] = {"segment": support["segment"], "groundingChunkIndices": indices}
        scores = support["confidenceScores"]
        if all(score is not None for score in scores):
            item["confidenceScores"] = scores
        written.append(item)
    if written:
        out["groundingSupports"] = written
    return out
