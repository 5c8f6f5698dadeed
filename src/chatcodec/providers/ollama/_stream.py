"""Ollama's streamed ``/api/chat`` answer: NDJSON chunks in, events and a response out.

Each line is a chat response chunk, ``{"model", "created_at", "message":
{"role", "content", "thinking"?, "tool_calls"?}, "done": false}``: content
and thinking arrive as deltas, tool calls whole (one or more per chunk, no
ids). The last line has ``"done": true``, ``done_reason`` and the counts and
durations: without it the stream was cut off. A line ``{"error": "..."}``
ends the stream with an error.

Strategy: keep what Ollama would have sent without streaming, as builtins.
The top-level fields and the message fields are the union of the lines'
(later lines win, so the body is the final line's), with ``content`` and
``thinking`` the concatenation of their deltas and ``tool_calls`` the calls in
order. That body goes through the codec's own response mapping, so
:meth:`~chatcodec.providers._streaming.StreamDecoder.finish` gives exactly
what ``decode_response`` gives for it, derived tool-call ids included. Those
ids depend on the final ``created_at``, so calls are announced as they arrive
(:class:`~chatcodec.ToolCallStarted` without an id) and completed when the
answer is done (or at the end of the input).

Speed: the usual line (more text, keys the body already has, not done) is
decoded in C into a typed Struct and taken with a few assignments; any other
line is decoded as builtins and checked whole. The body is decoded through
``decode_response``, whose typed path reads the usual body.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from ..._errors import DECODE_FAILURES, StreamError, ValidationError
from ..._events import (
    Finished,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ..._exchange import Response
from ..._framing import DEFAULT_LIMITS, Framing, Limits
from ..._stream import ToolCallAccumulator
from ..._tools import InvalidToolCall, ToolCall, ToolCallDelta
from .._fastpath import Wire
from .._streaming import StreamDecoder
from .._wire import encode_body, expect_dict, expect_list, json_body
from ._common import NAME
from ._decode import _object_bytes, decode_response

__all__ = ["OllamaStreamDecoder"]

_PLAIN = frozenset({"role", "content"})
_MISSING: Any = object()
_decoder = msgspec.json.Decoder()


class _Message(Wire):
    content: str
    role: Any = UNSET


class _Line(Wire):
    """The usual line: one more piece of text, and the envelope."""

    message: _Message
    model: Any = UNSET
    created_at: Any = UNSET
    done: bool | UnsetType = UNSET


_decode_line = msgspec.json.Decoder(_Line).decode


class OllamaStreamDecoder(StreamDecoder):
    """Decode an Ollama ``/api/chat`` stream; see :func:`chatcodec.providers.ollama.stream`."""

    __slots__ = (
        "_cached",
        "_calls",
        "_completed",
        "_content",
        "_has_calls",
        "_has_content",
        "_has_thinking",
        "_lines",
        "_message",
        "_misses",
        "_thinking",
        "_tools",
        "_top",
    )

    _LAST = 'its last line ("done": true)'

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(framing, limits)
        self._lines = 0
        self._top: dict[str, Any] = {}
        self._message: dict[str, Any] | None = None
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[Any] = []
        self._has_content = False
        self._has_thinking = False
        self._has_calls = False
        self._tools = ToolCallAccumulator(
            max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )
        self._completed = 0  # tool calls reported complete so far
        self._cached: Response | None = None  # the body so far, decoded
        self._misses = 0  # typed decodes failed in a row

    def _frame(self, event: str | None, payload: bytes, events: list[StreamEvent]) -> None:
        if self._misses < 4:
            # The usual line, typed and inline: its keys already in the body (so their
            # order stands), not the last line. The rest goes the general way.
            try:
                line = _decode_line(payload)
            except msgspec.DecodeError:  # a ValidationError too: not that shape
                self._misses += 1
            else:
                self._misses = 0
                message = self._message
                top = self._top
                said = line.message
                role, model, created, done = said.role, line.model, line.created_at, line.done
                if (
                    message is not None
                    and done is not True
                    and "message" in top
                    and "content" in message
                    and (role is UNSET or "role" in message)
                    and (model is UNSET or "model" in top)
                    and (created is UNSET or "created_at" in top)
                    and (done is UNSET or "done" in top)
                ):
                    self._lines += 1
                    self._cached = None
                    # The message's content is the joined deltas in _body: only its place counts.
                    if role is not UNSET:
                        message["role"] = role
                    if model is not UNSET:
                        top["model"] = model
                    if created is not UNSET:
                        top["created_at"] = created
                    if done is not UNSET:
                        top["done"] = done
                    self._has_content = True
                    text = said.content
                    if text:
                        self._content.append(text)
                        events.append(TextDelta(text))
                    return
        try:
            data = _decoder.decode(payload)
        except DECODE_FAILURES:
            data = None
        if type(data) is not dict:
            data = json_body(payload)  # raises, naming what is wrong
        if "error" in data:
            error = data["error"]
            kind = code = None
            if type(error) is dict:
                kind, code = error.get("type"), error.get("code")
            raise StreamError(
                _error_text(data),
                partial=self._partial(),
                provider="ollama",
                type=kind if type(kind) is str else None,
                code=code if type(code) is int or type(code) is str else None,
            )
        m = data.get("message")
        # The usual chunk, one piece of text, taken inline; anything else is
        # checked whole before any of it is taken, so that a bad line leaves
        # the response so far intact for the error's ``partial``.
        if type(m) is dict and m.keys() <= _PLAIN:
            content = m.get("content")
            if type(content) is str:
                self._lines += 1
                self._cached = None
                self._top.update(data)
                if self._message is None:
                    self._message = dict(m)
                else:
                    self._message.update(m)
                self._has_content = True
                if content:
                    self._content.append(content)
                    events.append(TextDelta(content))
                if data.get("done") is True:
                    self._done_line(events)
                return
        if m is None:
            self._take(data, None)
        else:
            path = f"$[{self._lines}]"
            m = expect_dict(m, path + ".message")
            thinking = _optional_str(m, "thinking", path)
            content = _optional_str(m, "content", path)
            deltas = _call_deltas(m.get("tool_calls"), path, len(self._calls))
            self._take(data, m)
            if thinking is not None:
                self._has_thinking = True
                if thinking:
                    self._thinking.append(thinking)
                    events.append(ReasoningDelta(thinking))
            if content is not None:
                self._has_content = True
                if content:
                    self._content.append(content)
                    events.append(TextDelta(content))
            if deltas is not None:
                self._has_calls = True
                self._calls.extend(m["tool_calls"])
                for delta in deltas:
                    events.extend(self._tools.feed(delta))
        if data.get("done") is True:
            self._done_line(events)

    def _take(self, data: dict[str, Any], m: dict[str, Any] | None) -> None:
        """Add a checked line's fields to the body so far."""
        self._lines += 1
        self._cached = None
        self._top.update(data)
        if m is not None:
            if self._message is None:
                self._message = dict(m)
            else:
                self._message.update(m)

    def _done_line(self, events: list[StreamEvent]) -> None:
        response = self._response()
        self._complete_calls(response, events)
        if response.usage is not None:
            events.append(UsageReported(response.usage))
        choice = response.choices[0]
        events.append(Finished(choice.finish_reason, choice.raw_finish_reason))

    def _complete_calls(self, response: Response, events: list[StreamEvent]) -> None:
        if self._completed == len(self._calls):
            return
        message = response.message
        if message is None:  # no message at all: no calls to complete
            return
        valid, invalid = message.tool_calls, message.invalid_tool_calls
        own = (message.extras or {}).get(NAME) or {}
        kinds = own.get("~calls") or "v" * len(valid) + "i" * len(invalid)
        ordered: list[ToolCall | InvalidToolCall] = []
        v = i = 0
        for kind in kinds:
            if kind == "v":
                ordered.append(valid[v])
                v += 1
            else:
                ordered.append(invalid[i])
                i += 1
        for slot in range(self._completed, len(ordered)):
            events.append(ToolCallCompleted(slot, ordered[slot]))
        self._completed = len(ordered)

    def _end(self, events: list[StreamEvent]) -> None:
        if self._lines and self._completed < len(self._calls):
            self._complete_calls(self._response(), events)

    def _complete(self) -> bool:
        return self._top.get("done") is True

    def _release(self) -> None:
        self._top, self._message, self._cached = {}, None, None
        self._content, self._thinking, self._calls = [], [], []
        self._tools = ToolCallAccumulator()

    def _response(self) -> Response:
        if self._cached is None:
            # The body holds only values msgspec decoded, so its JSON decodes back to
            # it: decode_response reads the usual body in C, else as response_from.
            self._cached = decode_response(encode_body(self._body()))
        return self._cached

    def _body(self) -> dict[str, Any]:
        if not self._lines:
            raise StreamError("the stream ended before its first chunk")
        body = dict(self._top)
        message = self._message
        if message is not None:
            message = dict(message)
            if self._has_content:
                message["content"] = "".join(self._content)
            if self._has_thinking:
                message["thinking"] = "".join(self._thinking)
            if self._has_calls:
                message["tool_calls"] = list(self._calls)
            body["message"] = message
        return body


def _optional_str(m: dict[str, Any], key: str, path: str) -> str | None:
    value = m.get(key)
    if value is None or type(value) is str:
        return value
    raise ValidationError("must be a string", f"{path}.message.{key}")


def _call_deltas(calls: Any, path: str, first: int) -> list[ToolCallDelta] | None:
    """One whole-call fragment per tool call of a chunk; slots count from ``first``."""
    if calls is None:
        return None
    calls = expect_list(calls, path + ".message.tool_calls")
    deltas = []
    for j, call in enumerate(calls):
        p = f"{path}.message.tool_calls[{j}]"
        c = expect_dict(call, p)
        fn = expect_dict(c.get("function"), p + ".function")
        call_id = c.get("id")
        name = fn.get("name")
        deltas.append(
            ToolCallDelta(
                first + j,  # an index of its own: each call is whole, a new slot
                call_id if type(call_id) is str else None,
                name if type(name) is str else None,
                _arguments_text(fn.get("arguments", _MISSING), path + ".message", j),
            )
        )
    return deltas


def _arguments_text(arguments: Any, path: str, j: int) -> str | None:
    """A call's arguments as the text ``decode_response`` keeps for them."""
    if arguments is _MISSING:
        return None
    if type(arguments) is str:
        return arguments
    return _object_bytes(arguments, path, j).decode()


def _error_text(data: dict[str, Any]) -> str:
    """What an error line says, without its message (which may quote the input)."""
    error = data["error"]
    said = []
    if type(error) is dict:
        for key in ("type", "code"):
            value = error.get(key)
            if type(value) in (str, int):
                said.append(f"{key} {value}")
    detail = f" ({', '.join(said)})" if said else ""
    return f"ollama reported an error in the stream{detail}"
