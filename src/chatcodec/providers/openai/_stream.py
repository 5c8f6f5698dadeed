"""OpenAI Chat Completions streams: chunks in, events and one response out.

Each SSE ``data:`` payload is a ``chat.completion.chunk`` (``[DONE]`` ends the
stream where the dialect sends it). The decoder folds the chunks into the
``chat.completion`` body a non-streamed call would have returned, the way
openai-python's ``ChatCompletionStreamState`` builds its snapshot, and decodes
that body with the codec's own :func:`decode_response`, so a streamed answer
and a plain one decode alike. Folding, per choice (by its ``index``):

- ``content``, ``refusal``, ``reasoning_content`` and ``reasoning`` strings
  are concatenated; a key that only ever came as ``null`` stays ``null``.
  Mistral's content lists (``thinking`` and ``text`` parts) make the merged
  ``content`` a list, with runs of text, and of thinking, merged into one
  part each;
- OpenRouter's ``reasoning_details`` entries merge by their ``index``
  (strings concatenated), as openai-python merges indexed lists;
- tool-call fragments go through a :class:`~chatcodec.ToolCallAccumulator`
  (one per choice; plain argument text for an index already seen goes
  straight to the call there), which decides which call each fragment belongs to
  (by index; by id where there is no index, as Mistral and Gemini's OpenAI
  endpoint send whole calls; a reused index with a new id is a new call).
  Each merged call has the first non-empty ``id`` (an empty one is kept
  as sent, so the codec derives the id as for a plain body), the ``type``,
  and ``function`` with the first name and the argument fragments joined;
  the stream addressing ``index`` is dropped. A choice's finish reason
  completes its calls (their events go out): a fragment for one of them
  after it is refused, a fragment that starts another call is not;
- ``logprobs`` lists (``content``, ``refusal``) are concatenated;
- ``finish_reason``: the first non-empty one;
- every other key of a choice or a delta takes the last non-null value
  (lists are extended).

Each other key of a chunk (``id``, ``model``, ``system_fingerprint``,
``service_tier``, ``x_groq``, Azure's ``prompt_filter_results``...) keeps
the first non-null value sent, except ``usage``, which takes the last
(Groq's older streams give it only in ``x_groq.usage``: that is the usage).
``object`` becomes ``"chat.completion"``; ``obfuscation`` (per-chunk
padding) is dropped.

Speed: a chunk is decoded in C into private wire Structs that forbid unknown
keys, so a chunk of the usual shape needs no scan for leftovers. The chunks
between the first and the last (text, or argument fragments of known calls)
have a smaller Struct still, and cost a few attribute reads, appends and
events each; the others take the full Struct. A chunk of any other shape (a
dialect's key, another type, an error) is decoded as builtins and folded key
by key, with the same rules; after a few such chunks in a row the typed
attempts stop. The body is built, and decoded, once, at the end.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ..._errors import StreamError, ValidationError
from ..._events import (
    CitationReceived,
    Finished,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    UsageReported,
)
from ..._exchange import Response
from ..._framing import DEFAULT_LIMITS, Framing, Limits, Pair, limits, over_limit
from ..._stream import (
    ToolCallArgumentsDelta,
)
from ..._tools import ToolCallDelta
from .._streaming import StreamDecoder
from .._wire import encode_body, expect_dict, expect_list
from ._cite import read_annotations
from ._common import encode_json, normalize_finish
from ._decode_assistant import _usage, decode_response
from ._stream_choice import _Answer, _cut
from ._stream_chunks import (
    _DROPPED,
    _HEAD,
    _MISSING,
    _NULL,
    _Chunk,
    _decode_any,
    _decode_chunk,
    _decode_plain,
    _keep,
    _merge,
    _PlainChunk,
)

__all__ = ["OpenAIStreamDecoder", "stream"]


class OpenAIStreamDecoder(StreamDecoder):
    """Decode an OpenAI Chat Completions stream; made by :func:`stream`, see there."""

    __slots__ = ("_answers", "_by_key", "_ended", "_misses", "_missing", "_top", "_usage")

    _LAST = "[DONE] (or, without it, a finish reason for every choice and the usage)"

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(framing, limits)
        self._ended = False  # [DONE] came
        self._top: dict[str, Any] = {}
        self._answers: list[_Answer] = []
        self._by_key: dict[int, _Answer] = {}
        self._missing: tuple[str, ...] = _HEAD  # top-level keys with no value yet
        self._misses = 0  # typed decodes failed in a row
        self._usage: Any = None  # the usage last reported

    # -- chunks -----------------------------------------------------------------

    def _frames(self, frames: list[Pair], events: list[StreamEvent]) -> None:
        # The usual chunk is folded here, inline, with no call per chunk: one
        # choice, more text or more arguments for a call already there.
        # Anything else goes to _frame (which _plain folds, or the full path).
        by_key = self._by_key
        limit = self._limits.max_arguments
        for event, data in frames:
            if event is not None or self._misses >= 4:
                self._frame(event, data, events)
                continue
            try:
                plain = _decode_plain(data)
            except msgspec.DecodeError:  # a ValidationError too: not that shape
                self._full(data, events)
                continue
            choices = plain.choices
            if len(choices) == 1:
                c = choices[0]
                answer = by_key.get(c.index)
                if (
                    answer is not None
                    and (answer.finish is not _MISSING or c.finish_reason is UNSET)
                    and (answer.logprobs is not _MISSING or c.logprobs is UNSET)
                ):
                    d = c.delta
                    text = d.content
                    calls = d.tool_calls
                    taken = False
                    if calls is UNSET:
                        if text is UNSET or answer.content == "str":
                            taken = True
                            if text:
                                answer.text.append(text)
                                events.append(TextDelta(text, answer.key))
                            elif text is not UNSET:
                                answer.text.append(text)
                    elif text is UNSET:
                        if len(calls) == 1:
                            call = calls[0]
                            slot = answer.by_index.get(call.index)
                            if slot is not None:
                                target = answer.calls[slot]
                                if "arguments" in target.function:
                                    taken = True
                                    more = call.function.arguments
                                    if more:
                                        target.fragments.append(more)
                                        target.size += len(more)
                                        if target.size > limit:
                                            raise over_limit("max_arguments", limit)
                                        delta = ToolCallArgumentsDelta(slot, more, answer.key)
                                        events.append(delta)
                        else:
                            taken = answer.more(calls, events)
                    if taken:
                        self._misses = 0
                        for key in self._missing:
                            if getattr(plain, key) is not UNSET:
                                self._head(plain)
                                break
                        continue
            self._folded(plain, data, events)

    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        if event == "error":
            self._error_event(data)
        if self._misses < 4:
            try:
                plain = _decode_plain(data)
            except msgspec.DecodeError:  # a ValidationError too: not that shape
                pass
            else:
                self._folded(plain, data, events)
                return
        self._full(data, events)

    def _folded(self, plain: _PlainChunk, data: bytes, events: list[StreamEvent]) -> None:
        """A chunk that decoded plain: folded as such, or by the full path."""
        self._misses = 0
        if not self._plain(plain, events):
            self._full(data, events)

    def _full(self, data: bytes, events: list[StreamEvent]) -> None:
        """The full typed chunk, or key by key when it is not of that shape."""
        try:
            chunk = _decode_chunk(data)
        except msgspec.DecodeError:  # not the usual shape: key by key
            if data.strip() != b"[DONE]":
                self._misses += 1
                self._general(data, events)
            else:
                self._ended = True
            return
        self._misses = 0
        self._typed(chunk, events)

    def _plain(self, chunk: _PlainChunk, events: list[StreamEvent]) -> bool:
        """Fold a plain chunk of several choices; False if it needs the full path."""
        by_key = self._by_key
        for c in chunk.choices:
            answer = by_key.get(c.index)
            d = c.delta
            if (
                answer is None
                or (d.content is not UNSET and answer.content != "str")
                or (answer.finish is _MISSING and c.finish_reason is not UNSET)
                or (answer.logprobs is _MISSING and c.logprobs is not UNSET)
                or (d.tool_calls is not UNSET and not answer.known(d.tool_calls))
            ):
                return False
        for key in self._missing:
            if getattr(chunk, key) is not UNSET:
                self._head(chunk)
                break
        for c in chunk.choices:
            answer = by_key[c.index]
            d = c.delta
            text = d.content
            if text is not UNSET:
                answer.text.append(text)
                if text:
                    events.append(TextDelta(text, answer.key))
            if d.tool_calls is not UNSET:
                answer.fragments(d.tool_calls, events)
        return True

    def _head(self, chunk: _Chunk | _PlainChunk) -> None:
        """The top-level keys still without a value: the first non-null one wins."""
        top = self._top
        changed = False
        for key in self._missing:
            value = getattr(chunk, key)
            if value is not UNSET:
                self._head_key(key, value)
                changed = True
        if changed:
            self._missing = tuple(key for key in _HEAD if not top.get(key))
        top.setdefault("choices", None)

    def _typed(self, chunk: _Chunk, events: list[StreamEvent]) -> None:
        """Fold a chunk of the usual shape, typed."""
        if self._missing:
            self._head(chunk)
        else:
            self._top.setdefault("choices", None)
        for c in chunk.choices:
            answer = self._by_key.get(c.index)
            if answer is None:
                answer = self._answer(c.index)
            d = c.delta
            if (
                d.role is UNSET
                and d.refusal is UNSET
                and d.reasoning_content is UNSET
                and d.reasoning is UNSET
            ):
                text = d.content
                if text is not UNSET:
                    if answer.content == "str" and text is not None:
                        answer.text.append(text)
                        if text:
                            events.append(TextDelta(text, answer.key))
                    else:
                        answer.text_piece(text, events)
            else:
                answer.rare(d, events)
            calls = d.tool_calls
            if calls is not UNSET:
                if not calls:
                    answer.message.setdefault("tool_calls", _NULL)
                for call in calls or ():
                    f = call.function
                    if (
                        f is not UNSET
                        and call.id is UNSET
                        and call.type is UNSET
                        and f.name is UNSET
                        and type(f.arguments) is str
                        and type(call.index) is int
                        and (slot := answer.by_index.get(call.index)) is not None
                        and slot >= answer.completed
                        and "arguments" in answer.calls[slot].function
                    ):
                        # The usual fragment: more arguments for a known index.
                        text = f.arguments
                        if text:
                            answer.calls[slot].fragments.append(text)
                            answer.calls[slot].size += len(text)
                            events.extend(
                                answer.acc.feed(ToolCallDelta(call.index, None, None, text))
                            )
                    elif f is UNSET:
                        answer.tool(call.index, call.id, call.type, UNSET, UNSET, events)
                    else:
                        answer.tool(call.index, call.id, call.type, f.name, f.arguments, events)
            logprobs = c.logprobs
            if logprobs is not UNSET:
                if logprobs is not None:
                    self._logprobs(answer, logprobs, f"$.choices[{answer.k}].logprobs")
                elif answer.logprobs is _MISSING:
                    answer.logprobs = None
            reason = c.finish_reason
            if reason is not UNSET:
                if reason:
                    self._finish(answer, reason, events)
                elif answer.finish is _MISSING:
                    answer.finish = reason
        usage = chunk.usage
        if usage is not UNSET:
            self._usage_value(usage, events)

    def _head_key(self, key: str, value: Any) -> None:
        if key == "object" and value == "chat.completion.chunk":
            value = "chat.completion"
        old = self._top.get(key, _MISSING)
        # Azure's first chunk has "id": "", "created": 0...: a later value wins over those.
        if old is _MISSING or (not old and value is not None and (value or old is None)):
            self._top[key] = value

    def _answer(self, key: int) -> _Answer:
        answer = self._by_key[key] = _Answer(key, len(self._answers), self._limits)
        self._answers.append(answer)
        return answer

    # -- any chunk, key by key ----------------------------------------------------

    def _general(self, data: bytes, events: list[StreamEvent]) -> None:
        chunk = expect_dict(_decode_any(data), "$")
        top = self._top
        for key, value in chunk.items():
            if key == "choices":
                top.setdefault(key, None)
                if value is None:
                    continue
                for place, item in enumerate(expect_list(value, "$.choices")):
                    self._choice(expect_dict(item, f"$.choices[{place}]"), place, events)
            elif key == "usage":
                continue
            elif key not in _DROPPED:
                self._head_key(key, value)
        if self._missing:
            self._missing = tuple(key for key in _HEAD if not top.get(key))
        if "usage" in chunk:
            self._usage_value(chunk["usage"], events)
        else:
            groq = chunk.get("x_groq")  # Groq's older streams: usage only in x_groq
            if type(groq) is dict and type(groq.get("usage")) is dict:
                self._usage_value(groq["usage"], events)
        error = chunk.get("error")
        if error is not None:
            raise self._stream_error(error)

    def _choice(self, c: dict[str, Any], place: int, events: list[StreamEvent]) -> None:
        path = f"$.choices[{place}]"
        number = c.get("index")
        key = number if type(number) is int else place
        answer = self._by_key.get(key)
        if answer is None:
            answer = self._answer(key)
        delta = c.get("delta")
        if delta is not None:
            self._delta(answer, expect_dict(delta, f"{path}.delta"), f"{path}.delta", events)
        for name, value in c.items():
            if name == "logprobs":
                self._logprobs(answer, value, f"{path}.logprobs")
            elif name == "finish_reason":
                if value is not None and type(value) is not str:
                    raise ValidationError("must be a string or null", f"{path}.finish_reason")
                self._finish(answer, value, events)
            elif name not in ("index", "delta", "message"):
                # ``message``: Perplexity repeats the message so far; the deltas make it.
                _keep(answer.fields, name, value)

    def _delta(
        self, answer: _Answer, d: dict[str, Any], path: str, events: list[StreamEvent]
    ) -> None:
        details = d.get("reasoning_details")
        if details is not None:
            where = f"{path}.reasoning_details"
            answer.details(expect_list(details, where), events, where)
        elif "reasoning_details" in d:
            answer.message.setdefault("reasoning_details", None)
        for key in ("reasoning_content", "reasoning"):
            if key in d:
                value = d[key]
                if value is not None and type(value) is not str:
                    raise ValidationError("must be a string or null", f"{path}.{key}")
                answer.reasoning(key, value, events)
        if "role" in d:
            _keep(answer.message, "role", d["role"])
        if "content" in d:
            content = d["content"]
            if type(content) is list:
                answer.content_parts(content, f"{path}.content", events)
            elif content is None or type(content) is str:
                answer.text_piece(content, events)
            else:
                raise ValidationError("must be a string, an array or null", f"{path}.content")
        if "refusal" in d:
            value = d["refusal"]
            if value is not None and type(value) is not str:
                raise ValidationError("must be a string or null", f"{path}.refusal")
            answer.string("refusal", value)
            if value:
                events.append(RefusalDelta(value, answer.key))
        calls = d.get("tool_calls")
        if calls is not None:
            for j, item in enumerate(expect_list(calls, f"{path}.tool_calls")):
                at = f"{path}.tool_calls[{j}]"
                call = expect_dict(item, at)
                function = call.get("function")
                if function is None:
                    function = {}
                expect_dict(function, f"{at}.function")
                name = function.get("name")
                if name is not None and type(name) is not str:
                    raise ValidationError("must be a string", f"{at}.function.name")
                arguments = function.get("arguments")
                if type(arguments) is dict:
                    arguments = encode_json(arguments).decode()
                elif arguments is not None and type(arguments) is not str:
                    raise ValidationError("must be a string", f"{at}.function.arguments")
                call_id = call.get("id")
                if call_id is not None and type(call_id) is not str:
                    raise ValidationError("must be a string", f"{at}.id")
                other = {k: v for k, v in call.items() if k not in ("index", "id", "function")}
                answer.tool(
                    call.get("index", UNSET),
                    call.get("id", UNSET),
                    other.pop("type", UNSET),
                    function.get("name", UNSET),
                    function.get("arguments", UNSET) if type(arguments) is not str else arguments,
                    events,
                    other,
                    {k: v for k, v in function.items() if k not in ("name", "arguments")},
                )
        elif "tool_calls" in d:
            answer.message.setdefault("tool_calls", _NULL)
        for key, value in d.items():
            if key not in _DELTA_KNOWN:
                if key == "annotations":
                    # Citations of the text so far (its offsets count the whole content).
                    for citation in read_annotations(value) or ():
                        events.append(CitationReceived(citation, answer.key))
                if type(value) is dict and type(answer.message.get(key)) is dict:
                    _merge(answer.message[key], value, f"{path}.{key}")
                else:
                    _keep(answer.message, key, dict(value) if type(value) is dict else value)

    # -- the rest -------------------------------------------------------------------

    def _logprobs(self, answer: _Answer, value: Any, path: str) -> None:
        if value is None:
            if answer.logprobs is _MISSING:
                answer.logprobs = None
            return
        value = expect_dict(value, path)
        merged = answer.logprobs
        if type(merged) is not dict:
            answer.logprobs = {
                key: list(item) if type(item) is list else item for key, item in value.items()
            }
            return
        for key, item in value.items():
            old = merged.get(key)
            if type(item) is list and type(old) is list:
                old.extend(item)
            elif item is not None:
                merged[key] = list(item) if type(item) is list else item
            else:
                merged.setdefault(key, None)

    def _finish(self, answer: _Answer, reason: str | None, events: list[StreamEvent]) -> None:
        if not reason:
            if answer.finish is _MISSING:
                answer.finish = reason
            return
        if type(answer.finish) is str and answer.finish:
            return  # the first reason stands
        answer.finish = reason
        answer.complete(events)
        events.append(Finished(normalize_finish(reason), reason, answer.key))

    def _usage_value(self, value: Any, events: list[StreamEvent]) -> None:
        if value is None:
            self._top.setdefault("usage", None)
            return
        usage = expect_dict(value, "$.usage")
        self._top["usage"] = usage
        if usage != self._usage:
            self._usage = usage
            events.append(UsageReported(_usage(usage)))

    def _error_event(self, data: bytes) -> None:
        """An ``event: error`` (Groq): its payload names the error."""
        try:
            payload = _decode_any(data)
        except msgspec.DecodeError:
            payload = None
        error = payload.get("error", payload) if type(payload) is dict else None
        raise self._stream_error(error)

    def _stream_error(self, error: Any) -> StreamError:
        if type(error) is dict:
            return self._reported("openai", error.get("type"), error.get("code"))
        return self._reported("openai", None)

    def _release(self) -> None:
        self._top, self._answers, self._by_key = {}, [], {}

    def _complete(self) -> bool:
        # [DONE] ends every OpenAI stream. Some dialects send none (Perplexity):
        # theirs ends with a finish reason for every choice and the usage. Short
        # of the usage, the stream may equally be OpenAI's cut after its last
        # finish reason, before the usage chunk (stream_options.include_usage)
        # and [DONE]: the decoder cannot tell, and does not call that complete.
        if self._ended:
            return True
        answers = self._answers
        return (
            self._usage is not None
            and bool(answers)
            and all(type(a.finish) is str and a.finish for a in answers)
        )

    def _end(self, events: list[StreamEvent]) -> None:
        # Calls of a choice that never finished end with the input (cut off: invalid).
        for answer in self._answers:
            answer.complete(events)

    def _body(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self._top.items():
            out[key] = [answer.body() for answer in self._answers] if key == "choices" else value
        return out

    def _response(self) -> Response:
        response = decode_response(encode_body(self._body()))
        if not any(answer.cut() for answer in self._answers):
            return response
        # The body cannot tell arguments cut off by the end of the stream from
        # arguments that are not JSON: the stream can.
        choices = list(response.choices)
        for answer in self._answers:
            message = choices[answer.k].message
            if answer.cut() and message is not None and message.invalid_tool_calls:
                calls = tuple(map(_cut, message.invalid_tool_calls))
                message = msgspec.structs.replace(message, invalid_tool_calls=calls)
                choices[answer.k] = msgspec.structs.replace(choices[answer.k], message=message)
        return msgspec.structs.replace(response, choices=tuple(choices))


_DELTA_KNOWN = frozenset(
    (
        "role",
        "content",
        "refusal",
        "tool_calls",
        "reasoning_content",
        "reasoning",
        "reasoning_details",
    )
)


def stream(
    framing: Framing | None = None,
    *,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> OpenAIStreamDecoder:
    r"""A decoder for an OpenAI Chat Completions stream (``"stream": true``).

    Feed it the bytes as they arrive (SSE, split anywhere); ``finish()``
    returns the same :class:`~chatcodec.Response` as ``decode_response`` of
    the ``chat.completion`` body the chunks add up to. Usage comes in one
    chunk (``stream_options.include_usage``), often with ``choices: []``;
    ``UsageReported`` carries it whole. Dialects (Azure, Groq, Mistral,
    DeepSeek, OpenRouter, vLLM...) decode too: their extra fields are kept
    where the merged body has a place for them.

    The stream is complete at ``[DONE]``, or, for dialects that send no
    ``[DONE]`` (Perplexity), once every choice has a finish reason and the
    usage has come. A stream that ended after its finish reasons but before
    the usage and ``[DONE]`` is not complete: OpenAI cut before its usage
    chunk looks just so, and its usage would be lost without a word.
    ``finish()`` of a stream cut off raises ``StreamError`` (see
    :meth:`~chatcodec.providers._streaming.StreamDecoder.finish`);
    ``finish(allow_incomplete=True)`` returns the response so far (``usage``
    None when none came) and ``complete`` stays False. A dialect that sends
    neither ``[DONE]`` nor usage reads that way too.

    Parameters
    ----------
    framing : {"sse"}, optional
        The framing, if known.
    max_line, max_event, max_arguments, max_tool_calls : int, optional
        Limits: the longest line and event of the stream in bytes (default
        32 and 64 MiB), the most characters of one call's arguments (16 MiB)
        and the most tool calls of one choice (10,000).

    Raises
    ------
    StreamError
        From ``feed``/``finish``: an ``event: error`` or a chunk holding an
        ``error`` object (the message names its type and code, and so do
        ``.provider``, ``.type`` and ``.code``), bytes that are not SSE, a
        payload that is not JSON, a limit passed (``.limit``), a stream cut
        off, or feeding after ``finish()``; ``partial`` holds the response
        so far.

    Examples
    --------
    >>> from chatcodec.providers import openai
    >>> decoder = openai.stream()
    >>> events = decoder.feed(
    ...     b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",'
    ...     b'"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},'
    ...     b'"finish_reason":null}]}\n\n'
    ...     b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",'
    ...     b'"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n'
    ...     b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",'
    ...     b'"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n'
    ...     b"data: [DONE]\n\n"
    ... )
    >>> [type(event).__name__ for event in events]
    ['TextDelta', 'TextDelta', 'Finished', 'UsageReported']
    >>> response = decoder.finish()
    >>> response.message.text, response.finish_reason, response.usage.total
    ('Hello', <FinishReason.STOP: 'stop'>, 5)
    """
    return OpenAIStreamDecoder(framing, limits(max_line, max_event, max_arguments, max_tool_calls))
