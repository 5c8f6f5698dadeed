"""OpenAI Chat Completions streams written: events in, ``chat.completion.chunk`` SSE out.

The rules a client relies on (openai-python's ``ChatCompletionStreamState``
among them): every chunk repeats the envelope (``id``, ``object``,
``created``, ``model``...); a choice's first chunk has ``role``; a tool
call's first fragment has its ``index``, ``id``, ``type`` and
``function.name``, the next ones the ``index`` and more ``arguments``; calls
are numbered per choice in order of appearance; ``finish_reason`` comes once,
in a chunk of its own; usage comes last in a chunk with ``choices: []``
(what ``stream_options.include_usage`` asks for); ``data: [DONE]`` ends the
stream.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._content import Citation, ReasoningPart, RefusalPart, TextPart
from ..._depth import refuses_depth
from ..._events import (
    CitationReceived,
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from ..._exchange import Response
from ..._loss import Loss
from ..._stream import ToolCallArgumentsDelta, ToolCallStarted
from ..._tools import InvalidToolCall, ToolCall
from ..._usage import Usage
from .._stream_writer import (
    DIFFERENT_ARGUMENTS,
    NO_STREAM_FORM,
    StreamEncoder,
    arguments_rest,
    dumps,
    loads,
    report_extras,
    report_read_valid,
    sse,
    tiny,
)
from .._wire import Encoding
from ._cite import write_annotation
from ._common import NAME
from ._dialect import FORMATS, OPENAI, Dialect
from ._encode import _usage, encode_response

__all__ = ["OpenAIStreamEncoder", "encode_stream", "stream_encoder"]

_DONE = b"data: [DONE]\n\n"
REASONING = "reasoning_content"
"""The key of reasoning deltas unless the dialect or the head says another."""
# Message keys the events fill; from the head only when null.
_STREAMED = frozenset(
    (
        "content",
        "refusal",
        "tool_calls",
        "reasoning_content",
        "reasoning",
        "reasoning_details",
        "annotations",  # CitationReceived brings them
    )
)
_CHOICE_OWN = frozenset(("index", "message", "delta", "finish_reason"))


def _top(body: dict[str, Any]) -> dict[str, Any]:
    """A body's envelope as a chunk's: every key but the choices and the usage."""
    top = {key: value for key, value in body.items() if key not in ("choices", "usage")}
    if top.get("object", "chat.completion") == "chat.completion":
        top["object"] = "chat.completion.chunk"
    return top


class _Answer:
    """One choice being written."""

    __slots__ = (
        "calls",
        "chars",
        "details",
        "finished",
        "index",
        "message",
        "notes",
        "open",
        "own",
        "reasoning",
        "sent",
        "started",
        "unnamed",
    )

    def __init__(self, index: int, head: dict[str, Any] | None, reasoning: str) -> None:
        self.index = index
        self.started = False
        self.finished = False
        self.chars = 0  # characters of content written: where a citation's span counts from
        self.notes: list[Any] = []  # annotations to send with the reason
        self.calls: dict[int, int] = {}  # slot -> the call's index in this choice
        self.details = 0  # the reasoning_details entries written
        self.sent: dict[int, list[str]] = {}  # slot -> the argument fragments written
        # slot -> (id written, name written), for a call whose start lacked either
        self.unnamed: dict[int, tuple[bool, bool]] = {}
        message = head.get("message") if head is not None else None
        message = message if type(message) is dict else {}
        # What the events cannot say: the message's and the choice's other
        # keys, and text fields that are null or empty.
        self.message = {"role": message.get("role", "assistant")}
        for key, value in message.items():
            if key not in _STREAMED or value is None or value == "":
                self.message[key] = value
        self.own = {k: v for k, v in (head or {}).items() if k not in _CHOICE_OWN}
        # Chunks say "finish_reason": null until the reason, unless the head had no such key.
        self.open: dict[str, Any] = (
            {"finish_reason": None} if head is None or "finish_reason" in head else {}
        )
        self.reasoning = "reasoning" if "reasoning" in message else reasoning


class OpenAIStreamEncoder(StreamEncoder):
    """Write an OpenAI Chat Completions stream; made by :func:`stream_encoder`, see there."""

    __slots__ = (
        "_answers",
        "_before",
        "_details",
        "_heads",
        "_include_usage",
        "_reasoning",
        "_signed",
        "_top",
        "_usage",
    )

    @refuses_depth
    def __init__(
        self,
        head: Response | None = None,
        *,
        include_usage: bool = True,
        losses: list[Loss] | None = None,
        dialect: Dialect = OPENAI,
    ) -> None:
        super().__init__(losses)
        body = loads(encode_response(head, dialect=dialect)) if head is not None else {}
        # The key of reasoning deltas: vLLM's and OpenRouter's streams say
        # "reasoning", DeepSeek's and OpenAI-style servers' "reasoning_content".
        self._reasoning = (
            "reasoning" if dialect.reasoning in ("reasoning", "reasoning_details") else REASONING
        )
        # OpenRouter's streams carry a Gemini call's signature as an entry.
        self._details = dialect.reasoning == "reasoning_details"
        self._top = _top(body)
        self._top.setdefault("object", "chat.completion.chunk")
        # What dumps({**top, "choices": [choice]}) writes before the choice.
        envelope = dumps(self._top)
        self._before = b"data: " + envelope[:-1] + b',"choices":['
        heads = body.get("choices")
        self._heads: dict[int, dict[str, Any]] = {}
        for place, choice in enumerate(heads if type(heads) is list else ()):
            number = choice.get("index")
            self._heads[number if type(number) is int else place] = choice
        self._answers: dict[int, _Answer] = {}
        self._include_usage = include_usage
        self._usage: Usage | None = None
        self._signed = False

    def _chunk(self, choice: dict[str, Any]) -> bytes:
        # The envelope is the same in every chunk: its bytes are made once (see _envelope).
        return self._before + dumps(choice) + b"]}\n\n"

    def _answer(self, key: int) -> _Answer:
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = _Answer(key, self._heads.get(key), self._reasoning)
        return answer

    def _cite(self, citation: Citation, key: int) -> bytes:
        """A citation, as a delta's ``annotations`` (its span counts the whole content)."""
        answer = self._answer(key)
        path = f"$.choices[{key}].message.citation"
        note = write_annotation(citation, 0, answer.chars, Encoding(NAME, self.losses), path)
        if note is not None:
            answer.notes.append(note)  # sent with the next event, with those beside it
        return b""

    def _delta(self, key: int, delta: dict[str, Any]) -> bytes:
        answer = self._answer(key)
        if not answer.started:
            answer.started = True
            delta = {**answer.message, **delta}
        return self._chunk({"index": key, "delta": delta, **answer.open})

    def _event(self, event: StreamEvent) -> bytes:
        kind = type(event)
        if kind is CitationReceived:
            assert isinstance(event, CitationReceived)
            return self._cite(event.citation, event.choice)
        # A choice's citations wait for its finish and go in one list with the reason:
        # clients (openai-python's stream accumulator) merge a list of deltas only by
        # index, which annotations do not have, so a second list would break them.
        return self._written(kind, event)

    def _written(self, kind: type, event: StreamEvent) -> bytes:
        if kind is TextDelta or kind is RefusalDelta:
            assert isinstance(event, TextDelta | RefusalDelta)
            if not event.text:
                return b""
            if kind is TextDelta:
                self._answer(event.choice).chars += len(event.text)
                return self._delta(event.choice, {"content": event.text})
            return self._delta(event.choice, {"refusal": event.text})
        if kind is ToolCallArgumentsDelta:
            assert isinstance(event, ToolCallArgumentsDelta)
            answer = self._answer(event.choice)
            out = b""
            if event.slot not in answer.calls:
                out = self._call(answer, event.slot, None, None)
            answer.sent.setdefault(event.slot, []).append(event.delta)
            return out + self._arguments(answer, event.slot, event.delta)
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            if event.signature is not None and not self._signed:
                self._signed = True  # reported once: every signature goes the same way
                self._lose(f"$.choices[{event.choice}].message", _NO_SIGNATURE)
            if not event.text:
                return b""
            answer = self._answer(event.choice)
            return self._delta(event.choice, {answer.reasoning: event.text})
        if kind is ToolCallStarted:
            assert isinstance(event, ToolCallStarted)
            return self._call(self._answer(event.choice), event.slot, event.id, event.name)
        if kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            answer = self._answer(event.choice)
            if event.slot in answer.calls:
                report_read_valid(event.call, event.choice, self.losses)
                # Written fragment by fragment: what they left unsaid (all, when none came).
                rest = arguments_rest(answer.sent.pop(event.slot, []), event.call)
                signed = self._signature(answer, event.call)
                where = f"$.choices[{event.choice}].message.tool_calls[{event.slot}]"
                report_extras(NAME, _unsigned(event.call) if signed else event.call, where,
                              self.losses)  # fmt: skip
                named = self._named(answer, event.slot, event.call)
                if rest is None:
                    self._lose(f"$.choices[{event.choice}].message.tool_calls", DIFFERENT_ARGUMENTS)
                    rest = ""
                out = self._arguments(answer, event.slot, rest, named) if rest or named else b""
                return out + signed
            wire = tiny(encode_response, call=event.call, losses=self.losses)
            call = wire["choices"][0]["message"]["tool_calls"][0]
            answer.calls[event.slot] = index = len(answer.calls)
            return self._delta(event.choice, {"tool_calls": [{"index": index, **call}]})
        if kind is PartReceived:
            assert isinstance(event, PartReceived)
            return self._part(event)
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            self._usage = event.usage  # written at the end: only the last one is sent
            return b""
        assert isinstance(event, Finished)
        answer = self._answer(event.choice)
        if answer.finished:
            return b""
        answer.finished = True
        wire = tiny(
            encode_response,
            finish=(event.finish_reason, event.raw_finish_reason),
            losses=self.losses,
        )
        reason = wire["choices"][0].get("finish_reason")
        delta: dict[str, Any] = {}
        if not answer.started:
            answer.started = True
            delta = dict(answer.message)
        if answer.notes:
            # Every citation in one list: a client merges a list of deltas only by index.
            delta["annotations"], answer.notes = answer.notes, []
        own = _chunk_keys(answer.own, f"$.choices[{event.choice}]", self.losses)
        choice = {"index": event.choice, "delta": delta, **own, "finish_reason": reason}
        return self._chunk(choice)

    def _signature(self, answer: _Answer, call: ToolCall | InvalidToolCall) -> bytes:
        """OpenRouter's entry for a Gemini call's thought signature, or nothing.

        The entry (keyed by the call's id) comes after the call; the decoder
        puts it on the call, as a body's entry.
        """
        theirs = (call.extras or {}).get("gemini")
        signature = theirs.get("thoughtSignature") if type(theirs) is dict else None
        if not self._details or type(signature) is not str or not call.id:
            return b""
        entry = {
            "type": "reasoning.encrypted",
            "data": signature,
            "id": call.id,
            "format": FORMATS["gemini"],
        }
        answer.details += 1
        return self._delta(answer.index, {"reasoning_details": [entry]})

    def _arguments(
        self, answer: _Answer, slot: int, text: str, named: dict[str, Any] | None = None
    ) -> bytes:
        call: dict[str, Any] = {"index": answer.calls[slot]}
        function: dict[str, Any] = {"arguments": text}
        if named is not None:
            # The id and name its start lacked: a later fragment may bring them,
            # the first one sent stands (as the decoder, and openai-python, merge).
            if "id" in named:
                call["id"] = named["id"]
            if "name" in named:
                function = {"name": named["name"], "arguments": text}
        call["function"] = function
        return self._delta(answer.index, {"tool_calls": [call]})

    @staticmethod
    def _named(
        answer: _Answer, slot: int, call: ToolCall | InvalidToolCall
    ) -> dict[str, Any] | None:
        """The id and name of a completed call that its start went without, if it has them."""
        written = answer.unnamed.pop(slot, None)
        if written is None:
            return None
        had_id, had_name = written
        named: dict[str, Any] = {}
        if not had_id and call.id:
            named["id"] = call.id
        if not had_name and call.name:
            named["name"] = call.name
        return named or None

    def _call(self, answer: _Answer, slot: int, id: str | None, name: str | None) -> bytes:
        answer.calls[slot] = index = len(answer.calls)
        if id is None or name is None:
            # A source may name a call after its first fragment (an OpenAI chunk
            # of arguments alone, then its id and name): its completion says them.
            answer.unnamed[slot] = (id is not None, name is not None)
        call: dict[str, Any] = {"index": index}
        if id is not None:
            call["id"] = id
        call["type"] = "function"
        call["function"] = {"name": name, "arguments": ""} if name is not None else {}
        return self._delta(answer.index, {"tool_calls": [call]})

    def _part(self, event: PartReceived) -> bytes:
        part = event.part
        if type(part) is TextPart:
            if not part.text:
                return b""
            answer = self._answer(event.choice)
            base = answer.chars
            answer.chars += len(part.text)
            out = self._delta(event.choice, {"content": part.text})
            for citation in part.citations:
                start, end = citation.start, citation.end
                if start is None:
                    start, end = 0, len(part.text)
                spanned = msgspec.structs.replace(
                    citation, start=base + start, end=None if end is None else base + end
                )
                out += self._cite(spanned, event.choice)
            return out
        if type(part) is RefusalPart:
            return self._delta(event.choice, {"refusal": part.text})
        if type(part) is ReasoningPart and part.redacted is None:
            answer = self._answer(event.choice)
            return self._delta(event.choice, {answer.reasoning: part.text}) if part.text else b""
        message = tiny(encode_response, part=part, losses=self.losses)["choices"][0]["message"]
        delta = {key: value for key, value in message.items() if key != "role"}
        entries = delta.get("reasoning_details")
        if type(entries) is list:
            answer = self._answer(event.choice)
            path = f"$.choices[{event.choice}].message"
            delta["reasoning_details"] = _placed(entries, answer.details, path, self.losses)
            answer.details += len(entries)
        return self._delta(event.choice, delta) if delta else b""

    def _end(self) -> bytes:
        out = b""
        for answer in self._answers.values():
            if not answer.finished and (answer.own or answer.notes):
                # Cut off before its reason: the choice's other keys still go out.
                delta = {"annotations": answer.notes} if answer.notes else {}
                out += self._chunk({"index": answer.index, "delta": delta, **answer.own})
        if self._include_usage and self._usage is not None:
            chunk = dict(self._top)
            chunk["choices"] = []
            # The family's own usage rule, without writing and reading a whole body.
            chunk["usage"] = _usage(self._usage, Encoding(NAME, None))
            out += sse(dumps(chunk))
        return out + _DONE


_NO_SIGNATURE = "openai has no field for a reasoning signature"
# The text keys of a delta and what a chunk may hold there (the stream decoder's rule).
_DELTA_TEXT: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("content", (str, list, type(None))),
    ("refusal", (str, type(None))),
    ("reasoning_content", (str, type(None))),
    ("reasoning", (str, type(None))),
)
_PLACE = "a stream's reasoning_details entry is at its index: another index is not carried"


def _unsigned(call: ToolCall | InvalidToolCall) -> ToolCall | InvalidToolCall:
    """``call`` without the Gemini signature its stream carried as an entry."""
    extras = dict(call.extras or {})
    theirs = {k: v for k, v in extras.pop("gemini").items() if k != "thoughtSignature"}
    if theirs:
        extras["gemini"] = theirs
    return msgspec.structs.replace(call, extras=extras or None)


def _placed(entries: Any, start: int, path: str, losses: list[Loss] | None) -> Any:
    """``reasoning_details`` entries as a stream addresses them, each one's index its place.

    A stream's entry with an integer ``index`` merges into the entry there (or
    comes next); a body's entry may say any index. One that is not its place
    is written at its place, reported.
    """
    if type(entries) is not list:
        return entries
    out = []
    for k, entry in enumerate(entries):
        if type(entry) is dict and type(entry.get("index")) is int and entry["index"] != start + k:
            entry = {**entry, "index": start + k}
            if losses is not None:
                losses.append(Loss(f"{path}.reasoning_details[{k}].index", _PLACE))
        out.append(entry)
    return out


def stream_encoder(
    head: Response | None = None,
    *,
    include_usage: bool = True,
    losses: list[Loss] | None = None,
    dialect: Dialect = OPENAI,
) -> OpenAIStreamEncoder:
    r"""An encoder for an OpenAI Chat Completions stream: events in, SSE bytes out.

    Sans-IO: :meth:`~OpenAIStreamEncoder.encode` takes one stream event (as
    any family's decoder makes them) and returns the bytes to send at once;
    :meth:`~OpenAIStreamEncoder.finish` returns the usage chunk and
    ``data: [DONE]``. Decoded again, the bytes give the events' content.

    Parameters
    ----------
    head : Response, optional
        Where the envelope comes from: ``id``, ``model`` and the keys kept in
        ``extras["openai"]`` (``created``, ``system_fingerprint``, each
        choice's ``logprobs``...). Its content, calls, usage and finish
        reasons are not used.
    include_usage : bool, default True
        Write the last usage reported in a chunk with ``choices: []`` before
        ``[DONE]`` (what ``stream_options.include_usage`` asks for).
    losses : list of Loss, optional
        Where to report what the stream cannot carry (reasoning signatures,
        parts with no Chat Completions field).
    dialect : Dialect, optional
        The service written for: reasoning deltas go as ``reasoning`` for
        vLLM and OpenRouter, ``reasoning_content`` otherwise.

    Examples
    --------
    >>> import json
    >>> from chatcodec import Response
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec.providers import openai
    >>> encoder = openai.stream_encoder(Response(id="c1", model="gpt-4o"))
    >>> chunk = encoder.encode(TextDelta("Hi"))
    >>> chunk[:6], json.loads(chunk[6:])["choices"][0]["delta"]
    (b'data: ', {'role': 'assistant', 'content': 'Hi'})
    >>> encoder.finish()
    b'data: [DONE]\n\n'
    """
    return OpenAIStreamEncoder(head, include_usage=include_usage, losses=losses, dialect=dialect)


def _chunk_keys(keys: dict[str, Any], path: str, losses: list[Loss] | None) -> dict[str, Any]:
    """A choice's other keys as a chunk may hold them: ``logprobs`` an object or null.

    A body keeps such a value as it came (a string, a list); a chunk's
    ``logprobs`` is merged by the decoder as an object, so any other value is
    left out and reported.
    """
    value = keys.get("logprobs")
    if value is None or type(value) is dict:
        return keys
    if losses is not None:
        losses.append(Loss(f"{path}.logprobs", NO_STREAM_FORM))
    return {key: item for key, item in keys.items() if key != "logprobs"}


@refuses_depth
def encode_stream(
    response: Response,
    *,
    include_usage: bool = True,
    losses: list[Loss] | None = None,
    dialect: Dialect = OPENAI,
) -> bytes:
    """Write a whole response as the stream OpenAI would have sent for it.

    Each choice's message in one chunk, its calls in one chunk (each whole,
    with its ``index``), its finish reason and other keys in a last chunk;
    then the usage chunk and ``data: [DONE]``. The stream decodes to the
    response :func:`decode_response` gives for :func:`encode_response`'s body.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    include_usage : bool, default True
        Write the usage chunk.
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    dialect : Dialect, optional
        The service written for, as for :func:`encode_response`.
    """
    body = loads(encode_response(response, losses=losses, dialect=dialect))
    top = _top(body)
    out: list[bytes] = []

    def chunk(choices: list[Any], **more: Any) -> None:
        out.append(sse(dumps({**top, "choices": choices, **more})))

    choices = body.get("choices")
    for place, choice in enumerate(choices if type(choices) is list else ()):
        index = choice.get("index", place)
        message = choice.get("message")
        if type(message) is dict:
            delta = {key: value for key, value in message.items() if key != "tool_calls"}
            path = f"$.choices[{place}].message"
            if "reasoning_details" in delta:
                delta["reasoning_details"] = _placed(delta["reasoning_details"], 0, path, losses)
            for key, kinds in _DELTA_TEXT:
                if key in delta and type(delta[key]) not in kinds:
                    # A body keeps such a value as it came; a chunk's is text, by rule.
                    del delta[key]
                    if losses is not None:
                        losses.append(Loss(f"{path}.{key}", NO_STREAM_FORM))
            calls = message.get("tool_calls", ())
            if not calls and "tool_calls" in message:
                delta["tool_calls"] = calls  # null, or an empty list
            if delta:
                chunk([{"index": index, "delta": delta}])
            if calls:
                calls = [
                    {"index": i, **_streamable(call, f"{path}.tool_calls[{i}]", losses)}
                    for i, call in enumerate(calls)
                ]
                chunk([{"index": index, "delta": {"tool_calls": calls}}])
        last = {key: value for key, value in choice.items() if key != "message"}
        last = _chunk_keys(last, f"$.choices[{place}]", losses)
        reason = last.get("finish_reason")
        if reason is not None and type(reason) is not str:
            # A body keeps such a value as it came; a chunk's is text or null, by rule.
            last["finish_reason"] = None
            if losses is not None:
                losses.append(Loss(f"$.choices[{place}].finish_reason", NO_STREAM_FORM))
        chunk([{**last, "index": index, "delta": {}}])
    if include_usage and "usage" in body:
        chunk([], usage=body["usage"])
    out.append(_DONE)
    return b"".join(out)


def _streamable(call: Any, path: str, losses: list[Loss] | None) -> dict[str, Any]:
    """A body's call as a chunk may hold it: a value of another type left out, and reported.

    A body keeps a call's keys as they came; in a chunk the id, the type and
    the function's name and arguments are text or null, and the function an
    object, by rule.
    """
    if type(call) is not dict:
        return {}  # the body encoder writes only objects
    out = dict(call)
    for key in ("id", "type"):
        if key in out and out[key] is not None and type(out[key]) is not str:
            del out[key]
            if losses is not None:
                losses.append(Loss(f"{path}.{key}", NO_STREAM_FORM))
    function = out.get("function")
    if "function" in out and type(function) is not dict:
        del out["function"]
        if losses is not None:
            losses.append(Loss(f"{path}.function", NO_STREAM_FORM))
    elif type(function) is dict:
        for key in ("name", "arguments"):
            value = function.get(key)
            if type(value) is msgspec.Raw:  # the arguments as they came: text, or else
                value = None if bytes(value)[:1] in (b'"', b"n") else value
            if value is not None and type(value) is not str:
                function = {k: v for k, v in function.items() if k != key}
                if losses is not None:
                    losses.append(Loss(f"{path}.function.{key}", NO_STREAM_FORM))
        out["function"] = function
    return out
