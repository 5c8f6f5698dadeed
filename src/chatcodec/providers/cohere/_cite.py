"""Cohere's ``citations`` <-> the citations of an assistant message's text parts.

Cohere cites on the message: each citation has the span it supports
(``start``, ``end``, characters of a content item's text, with that
``text``), the ``content_index`` of the item (without it, the first text
item), a ``type`` (``TEXT_CONTENT``) and its ``sources``: ``document``
sources (an ``id``, Cohere's ``doc:<n>`` for the n-th document sent without
one, and the ``document`` cited) and ``tool`` sources (the ``id``
``<call id>:<n>`` of a tool result, and its ``tool_output``). Each source
becomes one :class:`~chatcodec.Citation` on the text part: a tool source of
kind ``tool``, a document source of kind ``url`` when its document has a
``url``, else ``char``; ``source_id`` is its ``id``, ``document`` the n of a
``doc:<n>`` id, ``title`` and ``url`` the document's.

Written back, a citation is one Cohere citation with one source; the
sources of one Cohere citation are kept together by a hint. A list this
module cannot read into that form and write back as it came (a citation of
the plan or the thinking, a string ``content``, keys it does not know) stays
in the message's ``extras["cohere"]`` as sent, as before.

Hints in a citation's ``extras["cohere"]``: ``"~with": true`` (the source
belongs to the Cohere citation before it), ``"~index": true``
(``content_index`` was sent), ``"~text"`` (the citation's ``text``, when it
is not its part's text at the span) and ``"~absent"`` (the keys of
``text``, ``type`` it came without).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ..._content import Citation, ReasoningPart, TextPart
from ..._exchange import Request, Response
from ..._messages import AssistantMessage
from .._cite import lose_fields
from .._wire import Encoding, as_kept, fill
from ._common import NAME

__all__ = ["read_one", "read_request", "read_response", "write_citations"]

_DOC_ID = re.compile(r"doc:(0|[1-9][0-9]{0,17})")
_CITATION_KEYS = frozenset({"start", "end", "text", "sources", "content_index", "type"})
_TEXT_CONTENT = "TEXT_CONTENT"
_WITH, _INDEX, _TEXT, _ABSENT = "~with", "~index", "~text", "~absent"
_SPAN = frozenset({"start", "end"})
_TOOL_CARRIED = _SPAN | {"source_id"}
_DOC_CARRIED = _SPAN | {"source_id", "document", "title", "url"}
NO_FILE = "cohere cites documents and tool results given in the request, not stored files"
NO_TOOL_ID = "cohere needs the id of the tool result a citation cites"
NO_DOCUMENT = "cohere needs the id, title or url of the document a citation cites"
_encoder = msgspec.json.Encoder()


# -- reading --------------------------------------------------------------


def _source(wire: Any, start: int, end: int, hints: dict[str, Any]) -> Citation | None:
    """One source as a citation of span ``start``..``end``; None when it does not fit.

    ``hints`` go in its extras beside the source's own keys.
    """
    if type(wire) is not dict:
        return None
    kind = wire.get("type")
    source_id = wire.get("id")
    if source_id is not None and type(source_id) is not str:
        return None
    rest = {key: value for key, value in wire.items() if key != "type" and key != "id"}
    if kind == "tool":
        extras = _kept(rest, "id" in wire, hints)
        return Citation("tool", start=start, end=end, source_id=source_id, extras=extras)
    if kind != "document":
        return None
    document = wire.get("document")
    fields: dict[str, Any] = {}
    if type(document) is dict:
        for key in ("title", "url"):
            if type(document.get(key)) is str:
                fields[key] = document[key]
    elif document is not None:
        return None
    if source_id is not None:
        match = _DOC_ID.fullmatch(source_id)
        if match is not None:
            fields["document"] = int(match.group(1))
    return Citation(
        "url" if "url" in fields else "char",
        start=start,
        end=end,
        source_id=source_id,
        **fields,
        extras=_kept(rest, "id" in wire, hints),
    )


def _kept(rest: dict[str, Any], has_id: bool, hints: dict[str, Any]) -> dict[str, Any] | None:
    kept = as_kept(rest) if rest else rest
    if hints:
        kept.update(hints)
    if not has_id:
        kept[_ABSENT] = ["id", *kept.get(_ABSENT, ())]
    return {NAME: kept} if kept else None


def read_one(
    item: Any, texts: dict[int, str], first: int | None
) -> tuple[int, list[Citation]] | None:
    """One Cohere citation: the content index it cites, and one citation per source.

    ``texts`` maps the index of each text item to its text; ``first`` is the
    first text item's. None when the citation does not fit the canonical form.
    """
    if type(item) is not dict or not item.keys() <= _CITATION_KEYS:
        return None
    start, end, sources = item.get("start"), item.get("end"), item.get("sources")
    if type(start) is not int or type(end) is not int or not 0 <= start <= end:
        return None
    if type(sources) is not list or not sources:
        return None
    kind = item.get("type", _TEXT_CONTENT)
    if kind != _TEXT_CONTENT:
        return None  # a citation of the plan or of the thinking: no text part holds it
    index = item.get("content_index", first)
    if type(index) is not int or index not in texts:
        return None
    hints: dict[str, Any] = {}
    if "content_index" in item:
        hints[_INDEX] = True
    absent = [key for key in ("text", "type") if key not in item]
    if absent:
        hints[_ABSENT] = absent
    if "text" in item and item["text"] != texts[index][start:end]:
        hints[_TEXT] = item["text"]
    out: list[Citation] = []
    for k, wire in enumerate(sources):
        citation = _source(wire, start, end, hints if k == 0 else {_WITH: True})
        if citation is None:
            return None
        out.append(citation)
    return index, out


def _is_plan(part: Any) -> bool:
    extras = part.extras
    own = extras.get(NAME) if extras is not None else None
    return type(part) is ReasoningPart and type(own) is dict and own.get("~plan") is True


def _cited(message: AssistantMessage) -> AssistantMessage:
    """``message`` with its kept ``citations`` on its text parts, when they fit."""
    extras = message.extras
    own = extras.get(NAME) if extras is not None else None
    if type(own) is not dict or "~content" in own:
        return message
    wire = own.get("citations")
    content = message.content
    if type(wire) is not list or not wire or not isinstance(content, tuple):
        return message
    offset = 1 if content and _is_plan(content[0]) else 0
    items = content[offset:]
    texts = {k: part.text for k, part in enumerate(items) if type(part) is TextPart}
    if not texts or any(part.citations for part in items if type(part) is TextPart):
        return message
    first = min(texts)
    found: dict[int, list[Citation]] = {}
    last = first
    for item in wire:
        read = read_one(item, texts, first)
        if read is None or read[0] < last:
            return message  # kept as sent: another shape, or an order the parts cannot keep
        last, citations = read
        found.setdefault(last, []).extend(citations)
    parts = list(content)
    entries: list[tuple[int, TextPart, str]] = []
    for k, citations in found.items():
        part = items[k]
        assert type(part) is TextPart
        cited = msgspec.structs.replace(part, citations=tuple(citations))
        parts[offset + k] = cited
        entries.append((k, cited, ""))
    again = write_citations(entries, first, Encoding(NAME, None))
    if _encoder.encode(again) != _encoder.encode(wire):
        return message  # it would not be written back as it came: kept as sent
    assert extras is not None
    rest = {key: value for key, value in own.items() if key != "citations"}
    kept = {**extras, NAME: rest} if rest else {k: v for k, v in extras.items() if k != NAME}
    return msgspec.structs.replace(message, content=tuple(parts), extras=kept or None)


def read_response(response: Response) -> Response:
    """``response`` with its message's citations read (see the module docstring)."""
    choice = response.choices[0] if response.choices else None
    message = choice.message if choice is not None else None
    if message is None or message.extras is None:
        return response
    cited = _cited(message)
    if cited is message:
        return response
    assert choice is not None
    choices = (msgspec.structs.replace(choice, message=cited), *response.choices[1:])
    return msgspec.structs.replace(response, choices=choices)


def read_request(request: Request) -> Request:
    """``request`` with its assistant messages' citations read."""
    messages = request.messages
    out = None
    for i, message in enumerate(messages):
        if type(message) is AssistantMessage and message.extras is not None:
            cited = _cited(message)
            if cited is not message:
                out = list(messages) if out is None else out
                out[i] = cited
    return request if out is None else msgspec.structs.replace(request, messages=tuple(out))


# -- writing --------------------------------------------------------------


def write_citations(
    entries: list[tuple[int, TextPart, str]], first: int | None, enc: Encoding
) -> list[dict[str, Any]]:
    """The message's ``citations``: for each ``(content index, part, path)``, its part's.

    ``first`` is the index of the message's first text item: a citation of
    another item says its ``content_index``.
    """
    out: list[dict[str, Any]] = []
    for index, part, path in entries:
        group: dict[str, Any] | None = None
        for k, citation in enumerate(part.citations):
            where = f"{path}.citations[{k}]"
            own = enc.own(citation.extras, where)
            source = _write_source(citation, own, enc, where)
            if source is None:
                continue
            start = citation.start if citation.start is not None else 0
            end = citation.end if citation.end is not None else len(part.text)
            if (
                group is not None
                and own.get(_WITH) is True
                and (group["start"], group["end"]) == (start, end)
            ):
                group["sources"].append(source)
                continue
            group = {"start": start, "end": end}
            absent = own.get(_ABSENT)
            absent = absent if type(absent) is list else ()
            if "text" not in absent:
                group["text"] = own[_TEXT] if _TEXT in own else part.text[start:end]
            group["sources"] = [source]
            if own.get(_INDEX) is True or index != first:
                group["content_index"] = index
            if "type" not in absent:
                group["type"] = _TEXT_CONTENT
            out.append(group)
    return out


def _write_source(
    citation: Citation, own: dict[str, Any], enc: Encoding, path: str
) -> dict[str, Any] | None:
    """One Cohere source for ``citation``, or None when it is lost (reported)."""
    absent = own.get(_ABSENT)
    with_id = not (type(absent) is list and "id" in absent)
    kept = {key: value for key, value in own.items() if key not in (_ABSENT,)}
    if citation.kind == "tool":
        if citation.source_id is None and with_id:
            enc.lose(path, NO_TOOL_ID)
            return None
        if enc.losses is not None:
            lose_fields(enc, citation, path, _TOOL_CARRIED)
        out: dict[str, Any] = {"type": "tool"}
        if with_id and citation.source_id is not None:
            out["id"] = citation.source_id
        return fill(out, kept)
    if citation.kind == "file":
        enc.lose(path, NO_FILE)
        return None
    source_id = citation.source_id
    if source_id is None and citation.document is not None:
        source_id = f"doc:{citation.document}"
    document = kept.get("document")
    out = {"type": "document"}
    if with_id and source_id is not None:
        out["id"] = source_id
    if type(document) is dict or "document" not in kept:
        doc: dict[str, Any] = dict(document) if type(document) is dict else {}
        if not doc and source_id is not None:
            doc["id"] = source_id
        for key, value in (("title", citation.title), ("url", citation.url)):
            if value is not None:
                doc[key] = value
            elif type(doc.get(key)) is str:
                del doc[key]  # read into the citation, and taken out of it since
        if doc:
            out["document"] = doc
    if source_id is None and "document" not in out:
        enc.lose(path, NO_DOCUMENT)
        return None
    if enc.losses is not None:
        carried = _DOC_CARRIED
        if citation.document is not None and source_id != f"doc:{citation.document}":
            carried = carried - {"document"}
        lose_fields(enc, citation, path, carried)
    return fill(out, kept)
