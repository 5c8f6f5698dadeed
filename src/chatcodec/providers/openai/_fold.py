"""Folding OpenAI stream chunks: the wire Structs of the fast path, and the merge rules.

See ``_stream`` for the rules; this module holds the pieces the decoder uses per
chunk: the typed chunk Structs, the merge of builtins deltas, and the state of
one answer (choice) as it grows.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from ..._events import (
    StreamEvent,
)
from ..._stream import (
    ToolCallAccumulator,
    ToolCallArgumentsDelta,
    _problem,
)
from ..._tools import InvalidToolCall

_MISSING: Any = object()
_TRUNCATED = "arguments are truncated"
_NULL: Any = object()  # a key that came only as null so far
_DROPPED = frozenset(("obfuscation", "error"))
_TEXT = frozenset(("type", "text"))
_THINKING = frozenset(("type", "thinking"))


# -- the wire Structs of the fast path --------------------------------------------


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    """Base of the wire Structs: any other key fails the decode."""


class _Function(_Wire):
    name: str | UnsetType | None = UNSET
    arguments: str | UnsetType | None = UNSET


class _CallDelta(_Wire):
    index: int | UnsetType = UNSET
    id: str | UnsetType | None = UNSET
    type: str | UnsetType | None = UNSET
    function: _Function | UnsetType = UNSET


class _Delta(_Wire):
    content: str | UnsetType | None = UNSET
    tool_calls: list[_CallDelta] | UnsetType | None = UNSET
    role: str | UnsetType | None = UNSET
    refusal: str | UnsetType | None = UNSET
    reasoning_content: str | UnsetType | None = UNSET
    reasoning: str | UnsetType | None = UNSET


class _Choice(_Wire):
    index: int
    delta: _Delta
    finish_reason: str | UnsetType | None = UNSET
    logprobs: Any = UNSET


class _Chunk(_Wire):
    choices: list[_Choice]
    id: Any = UNSET
    object: Any = UNSET
    created: Any = UNSET
    model: Any = UNSET
    system_fingerprint: Any = UNSET
    service_tier: Any = UNSET
    usage: Any = UNSET
    obfuscation: Any = UNSET


class _PlainFunction(_Wire):
    arguments: str


class _PlainCall(_Wire):
    index: int
    function: _PlainFunction


class _PlainDelta(_Wire):
    content: str | UnsetType = UNSET
    tool_calls: list[_PlainCall] | UnsetType = UNSET


class _PlainChoice(_Wire):
    index: int
    delta: _PlainDelta
    finish_reason: UnsetType | None = UNSET
    logprobs: UnsetType | None = UNSET


class _PlainChunk(_Wire):
    """The chunks between the first and the last: more text, more arguments."""

    choices: list[_PlainChoice]
    id: Any = UNSET
    object: Any = UNSET
    created: Any = UNSET
    model: Any = UNSET
    system_fingerprint: Any = UNSET
    service_tier: Any = UNSET
    usage: UnsetType | None = UNSET
    obfuscation: Any = UNSET


_HEAD = ("id", "object", "created", "model", "system_fingerprint", "service_tier")
_decode_plain = msgspec.json.Decoder(_PlainChunk).decode
_decode_chunk = msgspec.json.Decoder(_Chunk).decode
_decode_any = msgspec.json.Decoder().decode


def _index(value: Any) -> int | None:
    """A tool-call index as the accumulator reads it (``"0"`` is 0)."""
    if type(value) is int:
        return value
    if type(value) is str and value.isdigit():
        return int(value)
    return None


def _merge(acc: dict[str, Any], delta: dict[str, Any]) -> None:
    """Merge ``delta`` into ``acc`` as openai-python's ``accumulate_delta`` does.

    Strings join, objects merge, lists of objects with an ``index`` merge by
    it, other lists are extended; ``index`` and ``type`` and any other value
    are replaced.
    """
    for key, value in delta.items():
        old = acc.get(key)
        if old is None:
            if not _indexed(value):
                acc[key] = value
                continue
            acc[key] = old = []
        if key == "index" or key == "type":
            acc[key] = value
        elif type(old) is str and type(value) is str:
            acc[key] = old + value
        elif type(old) is dict and type(value) is dict:
            _merge(old, value)
        elif type(old) is list and type(value) is list:
            _merge_list(old, value)
        else:
            acc[key] = value


def _indexed(value: Any) -> bool:
    return type(value) is list and any(type(e) is dict and "index" in e for e in value)


def _merge_list(old: list[Any], new: list[Any]) -> None:
    """Entries with an int ``index`` merge into the entry there; others are appended."""
    for entry in new:
        at = entry.get("index") if type(entry) is dict else None
        if type(at) is not int or at < 0:
            old.append(entry)
        elif at < len(old) and type(old[at]) is dict:
            _merge(old[at], entry)
        else:
            old.insert(at, entry)


def _keep(target: dict[str, Any], key: str, value: Any) -> None:
    """The last non-null value wins; lists are extended; null only if nothing else came."""
    if value is None:
        target.setdefault(key, None)
    elif type(value) is list:
        old = target.get(key)
        if type(old) is list:
            old.extend(value)
        else:
            target[key] = list(value)
    else:
        target[key] = value


class _Call:
    """One tool call's merged fields, by the accumulator's slot."""

    __slots__ = ("fields", "fragments", "function", "id", "name")

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}  # the call object's keys, "function" a place
        self.function: dict[str, Any] = {}  # the function object's other keys
        self.fragments: list[str] = []
        self.id: str | None = None
        self.name: str | None = None

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self.fields.items():
            if key == "function":
                function = dict(self.function)
                if "arguments" in function and type(function["arguments"]) is str:
                    function["arguments"] = _join(self.fragments)
                value = function
            out[key] = value
        return out


def _cut(call: InvalidToolCall) -> InvalidToolCall:
    """A call whose text stopped mid-JSON, said so."""
    if call.error == "arguments are not valid JSON" and _problem(call.arguments) == _TRUNCATED:
        return msgspec.structs.replace(call, error=_TRUNCATED)
    return call


def _join(fragments: list[str]) -> str:
    text = "".join(fragments)
    # A character outside the BMP split between two fragments arrives as two
    # lone surrogates; joined, they become the one character again.
    try:
        text.encode()
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class _Answer:
    """One choice's merged state."""

    __slots__ = (
        "acc",
        "by_id",
        "by_index",
        "calls",
        "completed",
        "content",
        "fields",
        "finish",
        "k",
        "key",
        "logprobs",
        "message",
        "parts",
        "reasoning_from",
        "strings",
        "text",
    )  # fmt: skip

    def __init__(self, key: int, k: int) -> None:
        self.key = key  # its index: the events' ``choice``
        self.k = k  # its place in the merged body
        self.fields: dict[str, Any] = {}  # the choice's other keys
        self.message: dict[str, Any] = {}  # the message's keys; accumulated ones are places
        self.content: Any = _MISSING  # _NULL, "str" or "parts"
        self.text: list[str] = []  # the content strings (the text run, with parts)
        self.parts: list[Any] = []  # content parts and text runs, with a content list
        self.strings: dict[str, list[str] | None] = {}  # refusal, reasoning keys
        self.reasoning_from: str | None = None  # the key the reasoning events come from
        self.calls: list[_Call] = []
        self.by_index: dict[int, int] = {}
        self.by_id: dict[str, int] = {}
        self.acc = ToolCallAccumulator(choice=key)
        self.completed = 0  # calls already reported complete
        self.logprobs: Any = _MISSING
        self.finish: Any = _MISSING

    def known(self, calls: list[_PlainCall]) -> bool:
        """Whether each fragment is more arguments for a call already there."""
        for call in calls:
            slot = self.by_index.get(call.index)
            if slot is None or "arguments" not in self.calls[slot].function:
                return False
        return True

    def more(self, calls: list[_PlainCall], events: list[StreamEvent]) -> bool:
        """:meth:`fragments` if :meth:`known`; False (and nothing done) if not."""
        if not self.known(calls):
            return False
        self.fragments(calls, events)
        return True

    def fragments(self, calls: list[_PlainCall], events: list[StreamEvent]) -> None:
        """More arguments for calls already there, by index.

        Where such a fragment goes needs no decision: the accumulator would
        put it in the call last seen at its index, as ``by_index`` says, and
        announce it with this very event. Every fragment that could start a
        call, or carries an id or a name, goes through the accumulator.
        """
        for call in calls:
            text = call.function.arguments
            if text:
                slot = self.by_index[call.index]
                self.calls[slot].fragments.append(text)
                events.append(ToolCallArgumentsDelta(slot, text, self.key))

    def cut(self) -> bool:
        """Whether the stream ended while this choice's calls were still coming."""
        return bool(self.calls) and not (type(self.finish) is str and self.finish)

    # -- message --------------------------------------------------------------

    def string(self, key: str, value: str | None) -> None:
        """One piece of ``refusal`` or a reasoning key."""
        if key not in self.message:
            self.message[key] = _NULL
        pieces = self.strings.get(key)
        if value is not None:
            if pieces is None:
                self.strings[key] = [value]
            else:
                pieces.append(value)

    def body(self) -> dict[str, Any]:
        message: dict[str, Any] = {}
        for key, value in self.message.items():
            if value is not _NULL:
                message[key] = value
            elif key == "content":
                message[key] = self._content()
            elif key == "tool_calls":
                message[key] = [call.body() for call in self.calls] if self.calls else None
            else:
                pieces = self.strings.get(key)
                message[key] = None if pieces is None else "".join(pieces)
        out: dict[str, Any] = {"index": self.key, "message": message}
        if self.logprobs is not _MISSING:
            out["logprobs"] = self.logprobs
        if self.finish is not _MISSING:
            out["finish_reason"] = self.finish
        for key, value in self.fields.items():
            out.setdefault(key, value)
        return out

    def _content(self) -> Any:
        if self.content is _NULL:
            return None
        if self.content == "str":
            return "".join(self.text)
        out: list[Any] = []
        for item in [*self.parts, "".join(self.text)]:
            if type(item) is str:
                if not item:
                    continue
                item = {"type": "text", "text": item}
            last = out[-1] if out else None
            if (
                last is not None
                and item.keys() == last.keys() == _TEXT
                and item["type"] == last["type"] == "text"
            ):
                out[-1] = {"type": "text", "text": last["text"] + item["text"]}
                continue
            if (
                last is not None
                and item.keys() == last.keys() == _THINKING
                and item["type"] == last["type"] == "thinking"
                and (before := _thinking_text(last)) is not None
                and (after := _thinking_text(item)) is not None
            ):
                text = before + after
                out[-1] = {"type": "thinking", "thinking": [{"type": "text", "text": text}]}
                continue
            out.append(item)
        return out


def _thinking_text(part: dict[str, Any]) -> str | None:
    """The text of a Mistral thinking part made of text chunks, else None."""
    chunks = part.get("thinking")
    if type(chunks) is not list or not chunks:
        return None
    for chunk in chunks:
        if type(chunk) is not dict or chunk.keys() != _TEXT or type(chunk.get("text")) is not str:
            return None
    return "".join(chunk["text"] for chunk in chunks)
