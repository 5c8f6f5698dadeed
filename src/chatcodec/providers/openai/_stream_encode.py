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
from ..._usage import Usage
from .._stream_writer import (
    DIFFERENT_ARGUMENTS,
    StreamEncoder,
    arguments_rest,
    dumps,
    loads,
    sse,
    tiny,
)
from .._wire import Encoding
from ._cite import write_annotation
from ._common import NAME
from ._encode import _usage, encode_response

__all__ = ["OpenAIStreamEncoder", "encode_stream", "stream_encoder"]

_DONE = b"data: [DONE]\n\n"
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
        "finished",
        "index",
        "message",
        "notes",
        "open",
        "own",
        "reasoning",
        "sent",
        "started",
    )

    def __init__(self, index: int, head: dict[str, Any] | None) -> None:
        self.index = index
        self.started = False
        self.finished = False
        self.chars = 0  # characters of content written: where a citation's span counts from
        self.notes: list[Any] = []  # annotations to send with the reason
        self.calls: dict[int, int] = {}  # slot -> the call's index in this choice
        self.sent: dict[int, list[str]] = {}  # slot -> the argument fragments written
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
        self.reasoning = "reasoning" if "reasoning" in message else "reasoning_content"


class OpenAIStreamEncoder(StreamEncoder):
    """Write an OpenAI Chat Completions stream; made by :func:`stream_encoder`, see there."""

    __slots__ = ("_answers", "_before", "_heads", "_include_usage", "_signed", "_top", "_usage")

    def __init__(
        self,
        head: Response | None = None,
        *,
        include_usage: bool = True,
        losses: list[Loss] | None = None,
    ) -> None:
        super().__init__(losses)
        body = loads(encode_response(head)) if head is not None else {}
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
            answer = self._answers[key] = _Answer(key, self._heads.get(key))
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
        if kind is not Finished:
            # Citations that came together go out together, before what follows them.
            noted = [a for a in self._answers.values() if a.notes]
            if noted:
                return self._noted(noted) + self._event(event)
        return self._written(kind, event)

    def _noted(self, answers: list[_Answer]) -> bytes:
        out = b""
        for answer in answers:
            notes, answer.notes = answer.notes, []
            out += self._delta(answer.index, {"annotations": notes})
        return out

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
                # Written fragment by fragment: what they left unsaid (all, when none came).
                rest = arguments_rest(answer.sent.pop(event.slot, []), event.call)
                if rest is None:
                    self._lose(f"$.choices[{event.choice}].message.tool_calls", DIFFERENT_ARGUMENTS)
                    return b""
                return self._arguments(answer, event.slot, rest) if rest else b""
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
        choice = {"index": event.choice, "delta": delta, **answer.own, "finish_reason": reason}
        return self._chunk(choice)

    def _arguments(self, answer: _Answer, slot: int, text: str) -> bytes:
        call = {"index": answer.calls[slot], "function": {"arguments": text}}
        return self._delta(answer.index, {"tool_calls": [call]})

    def _call(self, answer: _Answer, slot: int, id: str | None, name: str | None) -> bytes:
        answer.calls[slot] = index = len(answer.calls)
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


def stream_encoder(
    head: Response | None = None,
    *,
    include_usage: bool = True,
    losses: list[Loss] | None = None,
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
    return OpenAIStreamEncoder(head, include_usage=include_usage, losses=losses)


def encode_stream(
    response: Response, *, include_usage: bool = True, losses: list[Loss] | None = None
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
    """
    body = loads(encode_response(response, losses=losses))
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
            calls = message.get("tool_calls", ())
            if not calls and "tool_calls" in message:
                delta["tool_calls"] = calls  # null, or an empty list
            if delta:
                chunk([{"index": index, "delta": delta}])
            if calls:
                calls = [{"index": i, **call} for i, call in enumerate(calls)]
                chunk([{"index": index, "delta": {"tool_calls": calls}}])
        last = {key: value for key, value in choice.items() if key != "message"}
        chunk([{**last, "index": index, "delta": {}}])
    if include_usage and "usage" in body:
        chunk([], usage=body["usage"])
    out.append(_DONE)
    return b"".join(out)
