"""One choice of an OpenAI stream as it grows: its message pieces and tool calls.

The decoder (:mod:`._stream`) finds the choice a delta belongs to; the choice
folds the delta in, by the rules listed there, and says what happened with
events. Text and argument fragments of the usual chunk are appended by the
decoder itself, inline; everything else comes here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from msgspec import UNSET

from ..._content import OpaquePart, ReasoningPart
from ..._errors import ValidationError
from ..._events import (
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
)
from ..._framing import DEFAULT_LIMITS, Limits, over_limit
from ..._stream import (
    ToolCallAccumulator,
    ToolCallArgumentsDelta,
    ToolCallStarted,
    _index,
    _join,
    _problem,
)
from ..._tools import InvalidToolCall, ToolCall, ToolCallDelta
from .._wire import expect_dict
from ._common import NAME, encode_json
from ._decode_assistant import assistant
from ._dialect import FORMATS
from ._stream_chunks import _MISSING, _NULL, _Delta, _keep, _merge_list, _PlainCall

__all__ = ["_Answer", "_Call", "_cut", "_thinking_text"]

_TRUNCATED = "arguments are truncated"
_TEXT = frozenset(("type", "text"))
_THINKING = frozenset(("type", "thinking"))


class _Call:
    """One tool call's merged fields, by the accumulator's slot."""

    __slots__ = ("fields", "fragments", "function", "id", "name", "size")

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}  # the call object's keys, "function" a place
        self.function: dict[str, Any] = {}  # the function object's other keys
        self.fragments: list[str] = []
        self.size = 0  # characters of arguments so far
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
    """A call whose text stopped mid-JSON, or before any, said so."""
    if call.error == "arguments are empty" or (
        call.error == "arguments are not valid JSON" and _problem(call.arguments) == _TRUNCATED
    ):
        return msgspec.structs.replace(call, error=_TRUNCATED)
    return call


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
        "held",
        "k",
        "key",
        "logprobs",
        "max_arguments",
        "message",
        "parts",
        "reasoning_from",
        "strings",
        "text",
    )  # fmt: skip

    def __init__(self, key: int, k: int, limits: Limits = DEFAULT_LIMITS) -> None:
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
        self.acc = ToolCallAccumulator(
            choice=key, max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )
        self.max_arguments = limits.max_arguments
        self.completed = 0  # calls already reported complete
        # Encrypted Gemini entries with an id: a call's signature (no event of
        # their own) or reasoning, known when the calls are.
        self.held: list[tuple[Any, ReasoningPart]] = []
        self.logprobs: Any = _MISSING
        self.finish: Any = _MISSING

    def known(self, calls: list[_PlainCall]) -> bool:
        """Whether each fragment is more arguments for a call already there."""
        for call in calls:
            slot = self.by_index.get(call.index)
            if (
                slot is None
                or slot < self.completed
                or "arguments" not in self.calls[slot].function
            ):
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
                target = self.calls[slot]
                target.fragments.append(text)
                target.size += len(text)
                if target.size > self.max_arguments:
                    raise over_limit("max_arguments", self.max_arguments)
                events.append(ToolCallArgumentsDelta(slot, text, self.key))

    def cut(self) -> bool:
        """Whether the stream ended while this choice's calls were still coming."""
        return bool(self.calls) and not (type(self.finish) is str and self.finish)

    # -- message pieces (from the general paths) ------------------------------------

    def rare(self, d: _Delta, events: list[StreamEvent]) -> None:
        """A typed delta with more than content: in the message's order."""
        if d.reasoning_content is not UNSET:
            self.reasoning("reasoning_content", d.reasoning_content, events)
        if d.reasoning is not UNSET:
            self.reasoning("reasoning", d.reasoning, events)
        if d.role is not UNSET:
            _keep(self.message, "role", d.role)
        if d.content is not UNSET:
            self.text_piece(d.content, events)
        if d.refusal is not UNSET:
            self.string("refusal", d.refusal)
            if d.refusal:
                events.append(RefusalDelta(d.refusal, self.key))

    def reasoning(self, key: str, value: str | None, events: list[StreamEvent]) -> None:
        """One piece of a reasoning key; its events come from the first key that brings one."""
        self.string(key, value)
        if value is None:
            return
        if self.reasoning_from is None:
            self.reasoning_from = key
        if value and self.reasoning_from == key:
            events.append(ReasoningDelta(value, self.key))

    def details(self, items: list[Any], events: list[StreamEvent], path: str) -> None:
        """OpenRouter's ``reasoning_details`` entries: merged by index, announced as they come."""
        merged = self.message.get("reasoning_details")
        if type(merged) is not list:
            merged = self.message["reasoning_details"] = []
        entries = [dict(e) if type(e) is dict else e for e in items]
        if entries and self.reasoning_from in (None, "reasoning_details"):
            self.reasoning_from = "reasoning_details"
            for entry in entries:
                if type(entry) is not dict:
                    continue
                kind = entry.get("type")
                text = entry.get("summary" if kind == "reasoning.summary" else "text")
                signature = entry.get("signature")
                sign = signature if type(signature) is str and signature else None
                if kind == "reasoning.encrypted" and type(entry.get("data")) is str:
                    part = ReasoningPart(redacted=entry["data"], provider=NAME)
                    if entry.get("format") == FORMATS["gemini"] and type(entry.get("id")) is str:
                        self.held.append((entry["id"], part))
                    else:
                        events.append(PartReceived(part, self.key))
                elif (type(text) is str and text) or sign is not None:
                    events.append(ReasoningDelta(text if type(text) is str else "", self.key, sign))
        _merge_list(merged, entries, path)

    def text_piece(self, text: str | None, events: list[StreamEvent]) -> None:
        """One piece of string ``content`` (or its ``null``)."""
        self.message.setdefault("content", _NULL)
        if text is None:
            if self.content is _MISSING:
                self.content = _NULL
            return
        if self.content is _MISSING or self.content is _NULL:
            self.content = "str"
        self.text.append(text)
        if text:
            events.append(TextDelta(text, self.key))

    def content_parts(self, parts: list[Any], path: str, events: list[StreamEvent]) -> None:
        """Mistral's content list: text runs merged, other parts kept in place."""
        self.message.setdefault("content", _NULL)
        if self.content != "parts":
            self.content = "parts"
            self.parts.append("".join(self.text))
            self.text = []
        for j, item in enumerate(parts):
            part = expect_dict(item, f"{path}[{j}]")
            kind = part.get("type")
            if kind == "text" and part.keys() == _TEXT and type(part.get("text")) is str:
                self.text.append(part["text"])
                if part["text"]:
                    events.append(TextDelta(part["text"], self.key))
                continue
            self.parts.append("".join(self.text))
            self.text = []
            self.parts.append(part)
            thinking = _thinking_text(part) if kind == "thinking" else None
            if thinking is not None:
                if thinking:
                    events.append(ReasoningDelta(thinking, self.key))
            elif kind == "text" and type(part.get("text")) is str:
                if part["text"]:
                    events.append(TextDelta(part["text"], self.key))
            elif kind == "refusal" and type(part.get("refusal")) is str:
                if part["refusal"]:
                    events.append(RefusalDelta(part["refusal"], self.key))
            else:
                opaque = OpaquePart(NAME, msgspec.Raw(encode_json(part)))
                events.append(PartReceived(opaque, self.key))

    # -- tool calls -----------------------------------------------------------------

    def tool(
        self,
        index: Any,
        call_id: Any,
        kind: Any,
        name: Any,
        arguments: Any,
        events: list[StreamEvent],
        other: dict[str, Any] | None = None,
        inner: dict[str, Any] | None = None,
    ) -> None:
        """One tool-call delta: the accumulator places it, the call's fields merge it."""
        text = arguments if type(arguments) is str else None
        wire_index = None if index is UNSET else index
        number = _index(wire_index)
        sent_id = call_id if type(call_id) is str else None
        fresh = self.acc.feed(
            ToolCallDelta(number, sent_id, name if type(name) is str else None, text)
        )
        slot = -1
        for event in fresh:
            if type(event) is ToolCallStarted:
                self.calls.append(_Call())
                slot = event.slot
            elif type(event) is ToolCallArgumentsDelta:
                slot = event.slot
                self.calls[slot].fragments.append(event.delta)
                self.calls[slot].size += len(event.delta)
        if slot < 0:  # no event: a piece for a call already there
            if number is not None:
                slot = self.by_index[number]
            elif sent_id:
                slot = self.by_id.get(sent_id, len(self.calls) - 1)
            else:
                slot = len(self.calls) - 1
        if slot < self.completed:
            # Its completion, at the finish reason, has gone out in the events:
            # what came after would make the response say another call than they did.
            raise ValidationError(
                "must not come after the choice's finish_reason completed the call",
                f"$.choices[{self.k}].delta.tool_calls",
            )
        events.extend(fresh)
        self.message.setdefault("tool_calls", _NULL)
        call = self.calls[slot]
        if number is not None:
            self.by_index[number] = slot
        fields = call.fields
        if call_id is not UNSET:
            if sent_id:
                if not call.id:
                    call.id = sent_id
                    fields["id"] = sent_id
            elif "id" not in fields:
                fields["id"] = call_id
        if call.id:
            self.by_id.setdefault(call.id, slot)
        if kind is not UNSET:
            _keep(fields, "type", kind)
        fields.setdefault("function", None)
        function = call.function
        if type(name) is str and name:
            if not call.name:
                call.name = name
                function["name"] = name
        elif name is not UNSET and "name" not in function:
            function["name"] = name
        if arguments is not UNSET:
            _keep(function, "arguments", arguments)
        if other:
            for key, value in other.items():
                _keep(fields, key, value)
        if inner:
            for key, value in inner.items():
                _keep(function, key, value)

    def complete(self, events: list[StreamEvent]) -> None:
        """Report the calls not yet reported as complete, and the entries held for them."""
        if self.completed == len(self.calls):
            if self.held:
                message = assistant(self.body()["message"], f"$.choices[{self.k}].message", 0)
                self._release((*message.tool_calls, *message.invalid_tool_calls), events)
            return
        message = assistant(self.body()["message"], f"$.choices[{self.k}].message", 0)
        self._release((*message.tool_calls, *message.invalid_tool_calls), events)
        valid = list(message.tool_calls)
        invalid = [_cut(call) if self.cut() else call for call in message.invalid_tool_calls]
        own = (message.extras or {}).get(NAME) or {}
        at = own.get("~invalid_at") or range(len(valid), len(valid) + len(invalid))
        ordered: list[ToolCall | InvalidToolCall] = []
        for j in range(len(valid) + len(invalid)):
            ordered.append(invalid.pop(0) if j in at else valid.pop(0))
        for slot in range(self.completed, len(ordered)):
            events.append(ToolCallCompleted(slot, ordered[slot], self.key))
        self.completed = len(ordered)

    def _release(
        self, calls: Iterable[ToolCall | InvalidToolCall], events: list[StreamEvent]
    ) -> None:
        """A held entry no call took as its signature is reasoning, announced now."""
        taken = {call.id for call in calls if "~detail_at" in ((call.extras or {}).get(NAME) or {})}
        for ident, part in self.held:
            if ident in taken:
                taken.discard(ident)  # the first entry of that id is the call's, as in the body
            else:
                events.append(PartReceived(part, self.key))
        self.held = []

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
