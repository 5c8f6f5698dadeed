"""Responses API stream events written: the typed SSE events, and whole items as events.

Every event is ``event: <type>`` and one ``data:`` line holding its
``type``, its ``sequence_number`` (0, 1, 2... in the order sent) and its
fields in the order OpenAI writes them (``item_id``, ``output_index``,
``content_index``...). An item goes out as OpenAI streams it: added with
its streamed fields empty and its ``status`` ``in_progress``, each part
added, its text as deltas and done, the part done, then the whole item
done. :func:`whole_item` writes a finished item that way; the stream
encoder writes items as their events come, with the same events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import Raw

from ..._frozen import FrozenMap
from .._stream_writer import dumps, sse
from .._wire import derive_id
from ._common import NAME
from ._decode_items import answer_parts, reads_as_call, reasoning_part

__all__ = ["Sequence", "adding", "item_id", "started", "text_event", "text_of", "whole_item"]

# The keys of a response that only its last event fills: null in the first ones.
_LATE = frozenset(("usage", "error", "incomplete_details", "completed_at"))


class Sequence:
    """The events of one stream, numbered as they are written."""

    __slots__ = ("next",)

    def __init__(self) -> None:
        self.next = 0

    def __call__(self, kind: str, **fields: Any) -> bytes:
        data = {"type": kind, "sequence_number": self.next}
        data.update(fields)
        self.next += 1
        return sse(dumps(data), kind)


def text_of(value: Any) -> str:
    """A string field of an item read by ``loads``, which keeps ``arguments`` as JSON bytes."""
    if isinstance(value, Raw):
        value = msgspec.json.decode(bytes(value))
    return value if type(value) is str else ""


def item_id(item: dict[str, Any], index: int) -> str:
    """The id the events name an item by (a call's item may have none: one is derived)."""
    found = item.get("id")
    if type(found) is str:
        return found
    prefix = {"function_call": "fc_", "message": "msg_", "reasoning": "rs_"}.get(
        str(item.get("type")), "item_"
    )
    return derive_id(prefix, index, str(item.get("call_id", "")))


def started(body: dict[str, Any]) -> dict[str, Any]:
    """The response of ``response.created``: the envelope, no output, nothing final yet."""
    out: dict[str, Any] = {} if "object" in body else {"object": "response"}
    for key, value in body.items():
        if key == "output":
            value = []
        elif key == "status":
            value = "in_progress"
        elif key in _LATE:
            value = None
        out[key] = value
    out.setdefault("status", "in_progress")
    out.setdefault("output", [])
    return out


def text_event(part: dict[str, Any]) -> str:
    """The name (before ``.delta`` / ``.done``) of the events that write a part's text."""
    kind = part.get("type")
    if type(kind) is not str:  # not a text kind (and not a key: it may be any JSON value)
        return "response.output_text"
    return _TEXT_EVENTS.get(kind, "response.output_text")


_TEXT_EVENTS: Mapping[Any, str] = FrozenMap(
    {
        "output_text": "response.output_text",
        "refusal": "response.refusal",
        "summary_text": "response.reasoning_summary_text",
        "reasoning_text": "response.reasoning_text",
    }
)


# What an added item's call needs to be announced by it.
_ANNOUNCING = frozenset({"call_id", "name"})
# The part types each list reads as text, by the kind of item.
_ANSWER_TEXT = frozenset({"output_text", "refusal"})
_SUMMARY_TEXT = frozenset({"summary_text"})
_REASONING_TEXT = frozenset({"reasoning_text"})
_NO_TEXT: frozenset[str] = frozenset()


def adding(item: dict[str, Any], empty: dict[str, Any]) -> dict[str, Any]:
    """An item as its ``output_item.added`` shows it: ``empty`` fields, in progress."""
    out = {**item, **empty}
    if "status" in out:
        out["status"] = "in_progress"
    return out


def _parts(
    write: Sequence, where: dict[str, Any], key: str, parts: Any, kinds: frozenset[str]
) -> bytes:
    """The events of a list of text parts: each added, its text as a delta, done.

    A part of a type outside ``kinds`` (the text types of its item's list) goes
    whole in its ``added`` and ``done`` events: the body reader does not read
    it as that list's text, so no text event may say it.
    """
    added, done = "response.content_part.added", "response.content_part.done"
    if key == "summary":
        added, done = (
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_part.done",
        )
    index_key = "summary_index" if key == "summary" else "content_index"
    out = []
    for k, part in enumerate(parts if type(parts) is list else ()):
        if type(part) is not dict:
            continue
        field = "refusal" if part.get("type") == "refusal" else "text"
        text = part.get(field)
        at = {**where, index_key: k}
        kind = text_event(part)
        if type(text) is not str or part.get("type") not in kinds:
            # No text, or text of a type the item's list does not read as text (a
            # summary's part in ``content``, an unknown type...): whole.
            out.append(write(added, **at, part=part))
            out.append(write(done, **at, part=part))
            continue
        extra: dict[str, Any] = {"logprobs": []} if kind == "response.output_text" else {}
        notes = part.get("annotations")
        if kind == "response.output_text" and type(notes) is list and notes:
            # As OpenAI sends them: none at the start, each by an event after the text.
            out.append(write(added, **at, part={**part, field: "", "annotations": []}))
        else:
            out.append(write(added, **at, part={**part, field: ""}))
            notes = None
        if text:
            out.append(write(kind + ".delta", **at, delta=text, **extra))
        for n, note in enumerate(notes or ()):
            out.append(write(kind + ".annotation.added", **at, annotation_index=n, annotation=note))
        out.append(write(kind + ".done", **at, **{field: text}, **extra))
        out.append(write(done, **at, part=part))
    return b"".join(out)


def _a_call(item: dict[str, Any], kind: str) -> bool:
    """Whether the body reader reads ``item`` as a call (else it goes whole)."""
    field = "arguments" if kind == "function_call" else "input"
    value = item.get(field)
    if isinstance(value, Raw):  # as ``loads`` keeps it: the JSON of a string
        value = msgspec.json.decode(bytes(value))
    return reads_as_call({**item, field: value})


def whole_item(write: Sequence, index: int, item: Any) -> bytes:
    """A finished output item written as OpenAI streams one."""
    if type(item) is not dict:
        return write("response.output_item.added", output_index=index, item=item) + write(
            "response.output_item.done", output_index=index, item=item
        )
    kind = item.get("type")
    where = {"item_id": item_id(item, index), "output_index": index}
    out = []
    if answer_parts(item):  # (else the reader keeps it whole: it goes whole)
        out.append(
            write(
                "response.output_item.added", output_index=index, item=adding(item, {"content": []})
            )
        )
        out.append(_parts(write, where, "content", item["content"], _ANSWER_TEXT))
    elif kind == "reasoning" and (part := reasoning_part(item)) is not None:  # (else whole)
        empty: dict[str, Any] = {"summary": []}
        if type(item.get("content")) is list:
            empty["content"] = []
        out.append(
            write("response.output_item.added", output_index=index, item=adding(item, empty))
        )
        # Text events only for the list the reader reads the reasoning from (the
        # other list's parts go whole: their deltas would say more than it holds).
        own = part.extras[NAME] if part.extras else {}
        summary_kinds = _NO_TEXT if "summary" in own or "~content" in own else _SUMMARY_TEXT
        content_kinds = _REASONING_TEXT if "~content" in own else _NO_TEXT
        out.append(_parts(write, where, "summary", item.get("summary"), summary_kinds))
        out.append(_parts(write, where, "content", item.get("content"), content_kinds))
    elif (kind == "function_call" or kind == "custom_tool_call") and _a_call(item, kind):
        field = "arguments" if kind == "function_call" else "input"
        name = (
            "response.function_call_arguments"
            if field == "arguments"
            else "response.custom_tool_call_input"
        )
        text = text_of(item.get(field))
        out.append(
            write("response.output_item.added", output_index=index, item=adding(item, {field: ""}))
        )
        if text:
            out.append(write(name + ".delta", **where, delta=text))
        out.append(write(name + ".done", **where, **{field: text}))
    elif kind == "function_call" or kind == "custom_tool_call":
        # A call item the reader keeps whole: added without the id and name that
        # would announce a call, done as it is.
        shown = {key: value for key, value in item.items() if key not in _ANNOUNCING}
        out.append(write("response.output_item.added", output_index=index, item=shown))
    else:
        out.append(write("response.output_item.added", output_index=index, item=item))
    out.append(write("response.output_item.done", output_index=index, item=item))
    return b"".join(out)
