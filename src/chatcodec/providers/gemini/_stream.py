"""Gemini's ``streamGenerateContent``: chunks in, events and one response out.

Each chunk is a whole ``GenerateContentResponse``; the decoder folds them into
the body Gemini would have sent without streaming and decodes that with the
codec's own response mapping, so a streamed answer and a plain one decode
alike. Folding, per candidate (by its ``index``, else its place):

- text parts append to the last part when it is a text part of the same kind
  (answer or ``thought``) and at most one of the two carries a
  ``thoughtSignature``, which stays on the merged part; an empty text part
  that can merge with nothing is a no-op delta and is dropped (unless it is
  the candidate's first part);
- a ``functionCall`` usually arrives whole. Vertex AI can stream one
  (``streamFunctionCallArguments``): a call opens with ``willContinue: true``,
  its ``partialArgs`` give values by JSON path (strings in pieces), and a
  part without ``willContinue`` (often an empty ``functionCall``) closes it.
  The values build the call's ``args`` object; the argument deltas are its
  JSON text in order, which joined equal the final argument bytes when the
  paths arrive in document order (as they do);
- every other part is kept whole, in position;
- every other key of a candidate, its content, and the chunk (usage,
  ``modelVersion``, grounding metadata...) takes the value of the last chunk
  that sent it: Gemini's usage is cumulative, so the last one is the total.

The stream is complete once every candidate has a ``finishReason`` (or the
prompt was blocked: ``promptFeedback.blockReason``); before that it was cut
off, and a streamed call still open then is an invalid call whose arguments
are truncated.

Calls without an id get the id the codec derives for the merged body (from
the candidate, the part's place, the name and the arguments), so the calls in
``ToolCallCompleted`` events and in the final response match.

Speed: the usual chunk (one candidate, one more piece of text or thought for
the last part, the usage so far) is decoded in C into the Structs of
``_stream_chunks`` and folded inline; its usage is read from typed counts, and only
when it changed, and stays raw JSON in the body until the body is read. Any
other chunk is folded key by key. The body is built and decoded once, at the
end, through ``decode_response`` (whose typed path reads the usual body).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ..._content import ReasoningPart, TextPart
from ..._errors import ChatCodecError, ValidationError
from ..._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ..._exchange import Response
from ..._framing import DEFAULT_LIMITS, Framing, Limits, limits
from ..._stream import ToolCallAccumulator
from ..._tools import InvalidToolCall, ToolCall, ToolCallDelta
from ..._usage import Usage
from .._streaming import StreamDecoder
from .._wire import expect_dict, expect_list
from ._common import finish_reason
from ._decode import _Decoder, decode_response, response_from
from ._partial import _apply, _path, _Streamed
from ._stream_chunks import TextChunk, decode_text_chunk, quick_usage, typed_usage

__all__ = ["GeminiStreamDecoder", "stream"]

_decode_json = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode

_TEXT_PART = frozenset(("text", "thought", "thoughtSignature", "thought_signature"))
_SIGNATURE = ("thoughtSignature", "thought_signature")
_CALL = ("functionCall", "function_call")
_OTHER_DATA = ("inlineData", "inline_data", "fileData", "file_data", "functionResponse",
               "function_response", "text")  # fmt: skip
_STREAMING_KEYS = frozenset(("partialArgs", "partial_args", "willContinue", "will_continue"))
_VALUES = (
    ("stringValue", "string_value"),
    ("numberValue", "number_value"),
    ("boolValue", "bool_value"),
    ("nullValue", "null_value"),
)
_MISSING: Any = object()
_PLACE: Any = object()  # where a merged value goes in a key order


def _get(obj: dict[str, Any], keys: tuple[str, str]) -> Any:
    """The value under either spelling of a key, or ``_MISSING``."""
    value = obj.get(keys[0], _MISSING)
    return obj.get(keys[1], _MISSING) if value is _MISSING else value


class _Candidate:
    """One candidate's merged state."""

    __slots__ = (
        "acc",
        "calls",
        "content",
        "ended",
        "fields",
        "k",
        "key",
        "open",
        "parts",
        "streamed",
        "tail",
        "tail_kind",
        "tail_signed",
    )  # fmt: skip

    def __init__(self, key: int, k: int, limits: Limits = DEFAULT_LIMITS) -> None:
        self.key = key  # its index: the events' ``choice``
        self.k = k  # its place in the merged body
        self.fields: dict[str, Any] = {}
        self.content: dict[str, Any] | None = None
        self.parts: list[Any] = []
        self.acc = ToolCallAccumulator(
            choice=key, max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )
        self.calls = 0
        self.streamed: list[_Streamed] = []
        self.open: _Streamed | None = None
        self.ended = False  # the last part is a streamed call already closed
        # The last part, when text can still merge into it: its pieces, kind, signed.
        self.tail: list[str] | None = None
        self.tail_kind = False
        self.tail_signed = False

    def seal(self) -> None:
        """Write the merged text into the last part; nothing merges into it after."""
        if self.tail is not None:
            self.parts[-1]["text"] = "".join(self.tail)
            self.tail = None

    def body(self) -> dict[str, Any]:
        if self.tail is not None and len(self.tail) > 1:
            self.tail[:] = ["".join(self.tail)]
        if self.tail is not None:
            self.parts[-1]["text"] = self.tail[0]
        out: dict[str, Any] = {}
        for key, value in self.fields.items():
            if value is _PLACE:
                content = self.content or {}
                value = {name: self.parts if v is _PLACE else v for name, v in content.items()}
            out[key] = value
        return out


class GeminiStreamDecoder(StreamDecoder):
    """Decode a Gemini ``streamGenerateContent`` stream (SSE or a JSON array).

    Made by :func:`stream`; see there.
    """

    __slots__ = ("_by_key", "_candidates", "_decoder", "_misses", "_top", "_usage", "_usage_raw")

    _LAST = "a finishReason for every candidate"

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(framing, limits)
        self._top: dict[str, Any] = {}
        self._candidates: list[_Candidate] = []
        self._by_key: dict[int, _Candidate] = {}
        self._decoder = _Decoder()
        self._usage: Usage | None = None
        self._usage_raw: msgspec.Raw | None = None  # the usage JSON the fast path last took
        self._misses = 0  # typed decodes failed in a row

    # -- chunks -----------------------------------------------------------

    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        if self._misses < 4:
            try:
                typed = decode_text_chunk(data)
            except msgspec.DecodeError:  # a ValidationError too: not that shape
                self._misses += 1
            else:
                self._misses = 0
                if self._text_chunk(typed, events):
                    return
        self._general(data, events)

    def _text_chunk(self, c: TextChunk, events: list[StreamEvent]) -> bool:
        """One more piece of text for the last part, taken inline; False if it is not that.

        The same fold as the general path, for a chunk of one candidate
        already seen whose one text part merges into its last part, and
        whose every key is already in the body (so no key order changes).
        Everything is checked before anything is taken.
        """
        top = self._top
        candidates = c.candidates
        if len(candidates) != 1 or "candidates" not in top:
            return False
        cand = candidates[0]
        parts = cand.content.parts
        index = cand.index
        state = self._by_key.get(0 if index is UNSET else index)
        if len(parts) != 1 or state is None or state.open is not None or state.tail is None:
            return False
        fields = state.fields
        content = state.content
        role = cand.content.role
        if (
            fields.get("content") is not _PLACE
            or content is None
            or content.get("parts") is not _PLACE
            or (index is not UNSET and "index" not in fields)
            or (role is not UNSET and "role" not in content)
        ):
            return False
        part = parts[0]
        thought = part.thought
        signature = part.thought_signature
        signed = signature is not UNSET
        kind = thought is True
        merged = state.parts[-1]
        if (
            state.tail_kind != kind
            or (signed and state.tail_signed)
            # Two keys new to the merged part: their order is the wire's, unknown here.
            or (signed and thought is not UNSET and "thought" not in merged
                and "thoughtSignature" not in merged)
        ):  # fmt: skip
            return False
        u = c.usage_metadata
        value: Any = _MISSING
        raw: msgspec.Raw | None = None
        usage = None
        if u is not UNSET:
            if "usageMetadata" not in top or "usage_metadata" in top:
                return False
            if u != self._usage_raw:
                raw = u
                try:
                    # Kept as raw JSON in the body until the body is read (_settle).
                    usage = typed_usage(raw)
                    value = raw
                except msgspec.DecodeError:
                    value = _decode_json(raw)
                    if type(value) is not dict:
                        return False
                    try:
                        usage = quick_usage(value) or self._decoder.usage(value)
                    except (ChatCodecError, ValueError):
                        return False  # the general path raises it, in its place
                except (ChatCodecError, ValueError):
                    return False
        model, response_id = c.model_version, c.response_id
        if (model is not UNSET and "modelVersion" not in top) or (
            response_id is not UNSET and "responseId" not in top
        ):
            return False
        # Taken: the fold of _candidate, _content, _part and _text for this chunk.
        if index is not UNSET:
            fields["index"] = index
        if role is not UNSET:
            content["role"] = role
        text = part.text
        state.tail.append(text)
        if thought is not UNSET:
            merged["thought"] = thought
        if signed:
            merged["thoughtSignature"] = signature
            state.tail_signed = True
        if kind:
            if text or signed:
                sign = signature if type(signature) is str else None
                events.append(ReasoningDelta(text, state.key, sign))
        elif text:
            events.append(TextDelta(text, state.key))
        if value is not _MISSING:
            top["usageMetadata"] = value
            self._usage_raw = raw
        if model is not UNSET:
            top["modelVersion"] = model
        if response_id is not UNSET:
            top["responseId"] = response_id
        if usage is not None and usage != self._usage:
            self._usage = usage
            events.append(UsageReported(usage))
        return True

    def _general(self, data: bytes, events: list[StreamEvent]) -> None:
        """Any chunk, key by key."""
        self._settle()
        self._usage_raw = None
        chunk = expect_dict(_decode_json(data), "$")
        error = chunk.get("error")
        if type(error) is dict and "candidates" not in chunk:
            raise self._reported("gemini", error.get("status"), error.get("code"))
        usage = None
        for key, value in chunk.items():
            if key == "candidates":
                self._top.setdefault(key, _PLACE)
                for place, candidate in enumerate(expect_list(value, "$.candidates")):
                    self._candidate(candidate, place, events)
            else:
                if (key == "usageMetadata" or key == "usage_metadata") and value != self._top.get(
                    key
                ):
                    usage = quick_usage(value) or self._decoder.usage(value)
                self._top[key] = value
        if usage is not None and usage != self._usage:
            self._usage = usage
            events.append(UsageReported(usage))

    def _candidate(self, value: Any, place: int, events: list[StreamEvent]) -> None:
        path = f"$.candidates[{place}]"
        candidate = expect_dict(value, path)
        number = candidate.get("index")
        key = number if type(number) is int else place
        state = self._by_key.get(key)
        if state is None:
            state = self._by_key[key] = _Candidate(key, len(self._candidates), self._limits)
            self._candidates.append(state)
        reason = _MISSING
        for name, item in candidate.items():
            if (
                name == "content"
                and type(item) is dict
                and state.fields.get(name) in (None, _PLACE)
            ):
                state.fields[name] = _PLACE
                self._content(state, item, f"{path}.content", events)
            else:
                state.fields[name] = item
                if name == "finishReason" or name == "finish_reason":
                    reason = item
        if reason is not _MISSING:
            self._close(state, events)
            if "groundingMetadata" in state.fields or "grounding_metadata" in state.fields:
                self._cite(state, events)
            if type(reason) is str or type(reason) is int:
                normalized = finish_reason(reason, state.calls > 0)
                events.append(Finished(normalized, reason, key))

    def _cite(self, state: _Candidate, events: list[StreamEvent]) -> None:
        """A finished candidate's grounding as citations, placed in its streamed text.

        The candidate is read as the whole body reads it (its grounding becomes
        citations of its text parts); each citation's span is then counted in
        the text the candidate streamed, as :class:`CitationReceived` says.
        """
        try:
            read = decode_response(_encode({"candidates": [state.body()]}))
        except ChatCodecError:
            return  # the whole response, read at the end, says why
        message = read.choices[0].message if read.choices else None
        content = message.content if message is not None else None
        if type(content) is not tuple:
            return
        base = 0
        for part in content:
            if type(part) is not TextPart:
                continue
            for citation in part.citations:
                start = base + (citation.start if citation.start is not None else 0)
                end = base + (citation.end if citation.end is not None else len(part.text))
                placed = msgspec.structs.replace(citation, start=start, end=end)
                events.append(CitationReceived(placed, state.key))
            base += len(part.text)

    def _content(
        self, state: _Candidate, content: dict[str, Any], path: str, events: list[StreamEvent]
    ) -> None:
        if state.content is None:
            state.content = {}
        for name, item in content.items():
            if name == "parts":
                state.content[name] = _PLACE
                for j, part in enumerate(expect_list(item, f"{path}.parts")):
                    self._part(state, expect_dict(part, f"{path}.parts[{j}]"), events)
            else:
                state.content[name] = item

    # -- parts ------------------------------------------------------------

    def _part(self, state: _Candidate, part: dict[str, Any], events: list[StreamEvent]) -> None:
        call = _get(part, _CALL)
        if type(call) is dict and not any(key in part for key in _OTHER_DATA):
            self._call(state, part, call, events)
            return
        self._close(state, events)
        text = part.get("text", _MISSING)
        if text is not _MISSING and part.keys() <= _TEXT_PART:
            if type(text) is not str:
                at = f"$.candidates[{state.k}].content.parts[{len(state.parts)}].text"
                raise ValidationError("must be a string", at)
            thought = part.get("thought", False)
            signature = _get(part, _SIGNATURE)
            if type(thought) is bool and (signature is _MISSING or type(signature) is str):
                self._text(state, part, text, thought, signature, events)
                return
        self._whole(state, part, events)

    def _text(
        self,
        state: _Candidate,
        part: dict[str, Any],
        text: str,
        thought: bool,
        signature: Any,
        events: list[StreamEvent],
    ) -> None:
        signed = signature is not _MISSING
        tail = state.tail
        if tail is not None and state.tail_kind == thought and not (signed and state.tail_signed):
            tail.append(text)
            merged = state.parts[-1]
            for key, item in part.items():
                if key != "text":
                    merged[key] = item
            state.tail_signed = state.tail_signed or signed
        elif text or signed or len(part) > 1 or not state.parts:
            state.seal()
            state.ended = False
            state.parts.append(dict(part))
            state.tail, state.tail_kind, state.tail_signed = [text], thought, signed
        if thought:
            if text or signed:
                sign = signature if signed else None
                events.append(ReasoningDelta(text, state.key, sign))
        elif text:
            events.append(TextDelta(text, state.key))

    def _whole(self, state: _Candidate, part: dict[str, Any], events: list[StreamEvent]) -> None:
        """A part that is kept as it came: media, server tools, unknown kinds, odd text."""
        state.seal()
        state.ended = False
        position = len(state.parts)
        state.parts.append(part)
        item = self._decoder.model_part(
            part, f"$.candidates[{state.k}].content.parts[{position}]", state.k, position
        )
        if type(item) is ToolCall or type(item) is InvalidToolCall:
            self._completed(state, item, events)  # a call that came whole
        elif type(item) is TextPart:
            if item.text:
                events.append(TextDelta(item.text, state.key))
        elif type(item) is ReasoningPart:
            if item.text or item.signature is not None:
                events.append(ReasoningDelta(item.text, state.key, item.signature))
        else:
            events.append(PartReceived(item, state.key))

    def _completed(
        self, state: _Candidate, call: ToolCall | InvalidToolCall, events: list[StreamEvent]
    ) -> None:
        """A call that came whole: started, its arguments at once, complete."""
        slot = state.calls
        state.calls += 1
        text = (
            call.arguments if isinstance(call, InvalidToolCall) else bytes(call.arguments).decode()
        )
        delta = ToolCallDelta(slot, call.id or None, call.name or None, text)
        events.extend(state.acc.feed(delta))
        events.append(ToolCallCompleted(slot, call, state.key))

    # -- function calls ---------------------------------------------------

    def _call(
        self,
        state: _Candidate,
        part: dict[str, Any],
        call: dict[str, Any],
        events: list[StreamEvent],
    ) -> None:
        streamed = state.open
        if streamed is not None:
            name, id_ = call.get("name", _MISSING), call.get("id", _MISSING)
            if (
                "args" not in call
                and (name is _MISSING or name == streamed.name)
                and (id_ is _MISSING or id_ == streamed.call.get("id"))
            ):
                self._more(state, streamed, part, call, events)
                return
            self._close(state, events)
        if not call and state.ended:
            # The empty call that ends a streamed one; its part's keys join that call's part.
            merged = state.parts[-1]
            for key, item in part.items():
                if key not in _CALL:
                    merged[key] = item
            return
        partial = _get(call, ("partialArgs", "partial_args"))
        going = _get(call, ("willContinue", "will_continue"))
        if "args" in call or (partial is _MISSING and going is not True):
            self._whole(state, part, events)
            return
        state.seal()
        slot = state.calls
        state.calls += 1
        merged = {key: item for key, item in call.items() if key not in _STREAMING_KEYS}
        streamed = _Streamed(slot, len(state.parts), merged)
        part = {key: (merged if item is call else item) for key, item in part.items()}
        state.parts.append(part)
        state.streamed.append(streamed)
        state.open = streamed
        state.ended = False
        name = merged.get("name")
        id_ = merged.get("id")
        start = ToolCallDelta(
            slot,
            id_ if type(id_) is str and id_ else None,
            name if type(name) is str and name else None,
        )
        events.extend(state.acc.feed(start))
        self._more(state, streamed, part, call, events)

    def _more(
        self,
        state: _Candidate,
        streamed: _Streamed,
        part: dict[str, Any],
        call: dict[str, Any],
        events: list[StreamEvent],
    ) -> None:
        """One piece of a streamed call: its values, and whether more will come."""
        merged = state.parts[streamed.position]
        if part is not merged:
            for key, item in part.items():
                if key not in _CALL:
                    merged[key] = item
            for key, item in call.items():
                if key not in _STREAMING_KEYS:
                    streamed.call[key] = item
            if streamed.name is None and type(call.get("name")) is str:
                streamed.name = call["name"]
        pieces = _get(call, ("partialArgs", "partial_args"))
        if pieces is not _MISSING:
            where = f"$.candidates[{state.k}].content.parts[{streamed.position}]"
            for i, piece in enumerate(expect_list(pieces, f"{where}.functionCall.partialArgs")):
                at = f"{where}.functionCall.partialArgs[{i}]"
                self._piece(state, streamed, expect_dict(piece, at), at, events)
        if _get(call, ("willContinue", "will_continue")) is not True:
            self._close(state, events)

    def _piece(
        self,
        state: _Candidate,
        streamed: _Streamed,
        piece: dict[str, Any],
        at: str,
        events: list[StreamEvent],
    ) -> None:
        where = _get(piece, ("jsonPath", "json_path"))
        if type(where) is not str:
            return  # no place to put a value
        given = [
            (kind, v)
            for kind, keys in enumerate(_VALUES)
            if (v := _get(piece, keys)) is not _MISSING
        ]
        if not given:
            return  # only announces a value to come
        kind, value = given[0]
        if kind == 3:
            value = None  # "NULL_VALUE", as protobuf's JSON may spell null
        is_string = kind == 0
        if is_string and type(value) is not str:
            raise ValidationError("must be a string", f"{at}.stringValue")
        path = _path(where)
        _apply(streamed.args, path, value, is_string)
        text = streamed.writer.put(path, value, is_string)
        if text:
            streamed.fragments.append(text)
            events.extend(state.acc.feed(ToolCallDelta(streamed.slot, arguments_delta=text)))

    def _close(self, state: _Candidate, events: list[StreamEvent]) -> None:
        """The streamed call in progress is complete."""
        streamed = state.open
        if streamed is None:
            return
        text = streamed.writer.close()
        if text:
            streamed.fragments.append(text)
            events.extend(state.acc.feed(ToolCallDelta(streamed.slot, arguments_delta=text)))
        streamed.state = "closed"
        state.open = None
        state.ended = True
        position = streamed.position
        item = self._decoder.model_part(
            state.parts[position],
            f"$.candidates[{state.k}].content.parts[{position}]",
            state.k,
            position,
        )
        events.append(ToolCallCompleted(streamed.slot, item, state.key))

    # -- the end ----------------------------------------------------------

    def _end(self, events: list[StreamEvent]) -> None:
        # A streamed call still open was cut off: it ends invalid, with its text so far.
        cut = self._cut()
        for state in self._candidates:
            streamed = state.open
            if streamed is None:
                continue
            streamed.state = "cut"
            state.open = None
            position = streamed.position
            item = _Decoder(cut).model_part(
                state.parts[position],
                f"$.candidates[{state.k}].content.parts[{position}]",
                state.k,
                position,
            )
            events.append(ToolCallCompleted(streamed.slot, item, state.key))

    def _release(self) -> None:
        self._top, self._candidates, self._by_key = {}, [], {}

    def _complete(self) -> bool:
        feedback = self._top.get("promptFeedback", self._top.get("prompt_feedback"))
        if type(feedback) is dict and feedback.get("blockReason", feedback.get("block_reason")):
            return True
        candidates = self._candidates
        return bool(candidates) and all(
            "finishReason" in state.fields or "finish_reason" in state.fields
            for state in candidates
        )

    def _cut(self) -> dict[tuple[int, int], tuple[str, str]]:
        return {
            (state.k, streamed.position): streamed.cut()
            for state in self._candidates
            for streamed in state.streamed
            if streamed.state != "closed"
        }

    def _settle(self) -> None:
        """The usage the fast path kept as raw JSON, as builtins."""
        usage = self._top.get("usageMetadata")
        if type(usage) is msgspec.Raw:
            self._top["usageMetadata"] = _decode_json(usage)

    def _body(self) -> dict[str, Any]:
        self._settle()
        out: dict[str, Any] = {}
        for key, value in self._top.items():
            out[key] = [state.body() for state in self._candidates] if value is _PLACE else value
        return out

    def _response(self) -> Response:
        body = self._body()
        cut = self._cut()
        if cut:
            return response_from(body, cut)
        # The body holds only values msgspec decoded (finite numbers, valid strings),
        # so its JSON decodes back to it: decode_response reads the usual body in C,
        # and gives what response_from(body) gives (the general path is that).
        return decode_response(_encode(body))


def stream(
    framing: Framing | None = None,
    *,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> GeminiStreamDecoder:
    r"""A decoder for a Gemini ``streamGenerateContent`` response.

    Feed it the bytes as they arrive (SSE with ``alt=sse``, else a JSON
    array; detected from the first bytes, split anywhere); ``finish()``
    returns the same :class:`~chatcodec.Response` as ``decode_response`` of
    the body Gemini would have sent unstreamed. Usage is cumulative in
    Gemini's chunks: each ``UsageReported`` is the total.

    Parameters
    ----------
    framing : {"sse", "json-array"}, optional
        The framing, if known.
    max_line, max_event, max_arguments, max_tool_calls : int, optional
        Limits: the longest line (or array element) and event of the stream
        in bytes (default 32 and 64 MiB), the most characters of one call's
        arguments (16 MiB) and the most tool calls of one candidate (10,000).

    Raises
    ------
    StreamError
        From ``feed``/``finish``: a chunk holds an ``error`` object (its
        status and code in the message, ``.type`` and ``.code``), bytes that
        are neither SSE nor a JSON array, a payload is not JSON, a limit
        passed (``.limit``), a stream cut off before a ``finishReason`` for
        every candidate, or feeding after ``finish()``; ``partial`` holds the
        response so far.

    Examples
    --------
    >>> from chatcodec.providers import gemini
    >>> decoder = gemini.stream()
    >>> events = decoder.feed(
    ...     b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}\r\n\r\n'
    ...     b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},'
    ...     b'"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,'
    ...     b'"candidatesTokenCount":2,"totalTokenCount":5}}\r\n\r\n'
    ... )
    >>> [type(event).__name__ for event in events]
    ['TextDelta', 'TextDelta', 'Finished', 'UsageReported']
    >>> response = decoder.finish()
    >>> response.message.text, response.finish_reason, response.usage.total
    ('Hello', <FinishReason.STOP: 'stop'>, 5)
    """
    return GeminiStreamDecoder(framing, limits(max_line, max_event, max_arguments, max_tool_calls))
