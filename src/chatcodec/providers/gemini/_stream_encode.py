"""Gemini ``streamGenerateContent`` written: events in, whole-part chunks out.

Each chunk is a whole ``GenerateContentResponse``: one candidate holding
the parts that arrived (a piece of text or thought, or a whole part: a
function call is sent whole, with its ``thoughtSignature``), the usage so
far (Gemini's usage is cumulative), and the envelope (``modelVersion``,
``responseId``). The finish reason goes in the last chunk of its candidate,
with the usage that follows it. A Gemini stream ends with a ``finishReason``
for every candidate: :meth:`~GeminiStreamEncoder.finish` gives the candidates
that had none ``FINISH_REASON_UNSPECIFIED`` (candidate 0, when no event came),
so that the stream always reads to its end, as the other families' encoders
always write their last event. Framing: ``alt=sse`` (``data:`` lines, CRLF
as Gemini sends them) or the JSON array sent without it. Keys are written in
camelCase.

A call's argument fragments are not sent: Gemini sends a call whole, so
the call goes out when it is complete.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ..._content import Citation, ReasoningPart, TextPart
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
from .._stream_writer import (
    NO_STREAM_FORM,
    StreamEncoder,
    dumps,
    loads,
    one_line,
    sse,
    tiny,
)
from .._wire import Encoding
from ._encode import encode_response
from ._ground import HINT, KEY, NAME, SHAPE, write_grounding

__all__ = ["GeminiStreamEncoder", "encode_stream", "stream_encoder"]

GeminiFraming = Literal["sse", "json-array"]

_CANDIDATE_OWN = frozenset(("content", "finishReason", "index"))
# Gemini's reason when none is known (its proto's 0): what a stream ends with when
# the events gave no reason, as the other families end theirs with no stop reason.
_UNSPECIFIED = "FINISH_REASON_UNSPECIFIED"


class _Frames:
    """Chunks framed as ``alt=sse`` events or as the elements of one JSON array."""

    __slots__ = ("array", "count")

    def __init__(self, framing: GeminiFraming) -> None:
        if framing not in ("sse", "json-array"):
            raise ValueError(f"gemini streams are framed as sse or json-array, not {framing!r}")
        self.array = framing == "json-array"
        self.count = 0

    def frame(self, chunk: dict[str, Any]) -> bytes:
        data = one_line(dumps(chunk))
        self.count += 1
        if not self.array:
            return sse(data, end=b"\r\n")
        return (b"[" if self.count == 1 else b",\r\n") + data

    def end(self) -> bytes:
        if not self.array:
            return b""
        return b"]" if self.count else b"[]"


class GeminiStreamEncoder(StreamEncoder):
    """Write a Gemini stream; made by :func:`stream_encoder`, see there."""

    __slots__ = (
        "_cites",
        "_done",
        "_finishing",
        "_frames",
        "_grounds",
        "_heads",
        "_role",
        "_said",
        "_started",
        "_top",
        "_usage",
        "_written",
    )

    @refuses_depth
    def __init__(
        self,
        head: Response | None = None,
        *,
        framing: GeminiFraming = "sse",
        losses: list[Loss] | None = None,
    ) -> None:
        super().__init__(losses)
        self._frames = _Frames(framing)
        body = loads(encode_response(head)) if head is not None else {}
        self._top = {k: v for k, v in body.items() if k not in ("candidates", "usageMetadata")}
        # Each head candidate's keys the events do not carry, by its index.
        self._heads: dict[int, dict[str, Any]] = {}
        # Each head candidate's grounding beyond its citations (the events bring
        # those): the metadata's other keys and chunks, and where they stood.
        self._grounds: dict[int, tuple[Any, Any]] = {}
        candidates = body.get("candidates")
        choices = head.choices if head is not None else ()
        for place, candidate in enumerate(candidates if type(candidates) is list else ()):
            index = candidate.get("index", place)
            own = {k: v for k, v in candidate.items() if k not in _CANDIDATE_OWN and k != KEY}
            if "index" in candidate:
                own["index"] = index
            self._heads[index] = own
            extras = choices[place].extras if place < len(choices) else None
            kept = extras.get(NAME) if extras is not None else None
            if type(kept) is dict and (KEY in kept or HINT in kept):
                self._grounds[index] = (kept.get(KEY), kept.get(HINT))
        content = candidates[0].get("content") if type(candidates) is list and candidates else None
        role = content.get("role") if type(content) is dict else None
        self._role = role if role is not None else "model"
        self._usage: Any = None
        self._written: Any = None  # the usage last sent
        self._finishing: dict[int, dict[str, Any]] = {}  # finished candidates not yet sent
        self._started: set[int] = set()  # candidates that sent something
        self._done: set[int] = set()  # candidates that finished
        self._said: dict[int, list[str]] = {}  # each candidate's text so far, in pieces
        self._cites: dict[int, list[Citation]] = {}  # its citations, spans in that text

    def _chunk(self, candidates: list[dict[str, Any]] | None) -> bytes:
        out: dict[str, Any] = {}
        if candidates is not None:
            out["candidates"] = candidates
        if self._usage is not None:
            out["usageMetadata"] = self._usage
            self._written = self._usage
        out.update(self._top)
        return self._frames.frame(out)

    def _index(self, key: int) -> dict[str, Any]:
        head = self._heads.get(key)
        return {"index": key} if key != 0 or (head is not None and "index" in head) else {}

    def _parts(self, key: int, parts: list[Any]) -> bytes:
        out = self._flush()
        self._started.add(key)
        candidate = {"content": {"parts": parts, "role": self._role}, **self._index(key)}
        return out + self._chunk([candidate])

    def _flush(self) -> bytes:
        """Send the finished candidates held for the usage that follows them."""
        if not self._finishing:
            return b""
        candidates = list(self._finishing.values())
        self._finishing.clear()
        return self._chunk(candidates)

    def _event(self, event: StreamEvent) -> bytes:
        kind = type(event)
        if kind is CitationReceived:
            assert isinstance(event, CitationReceived)
            self._cites.setdefault(event.choice, []).append(event.citation)
            return b""  # written as the candidate's grounding, with its finish reason
        if kind is TextDelta or kind is RefusalDelta:
            assert isinstance(event, TextDelta | RefusalDelta)
            if kind is RefusalDelta:
                self._lose(
                    f"$.choices[{event.choice}].message", "gemini has no refusal: sent as text"
                )
            if not event.text:
                return b""
            self._said.setdefault(event.choice, []).append(event.text)
            return self._parts(event.choice, [{"text": event.text}])
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            part: dict[str, Any] = {"text": event.text, "thought": True}
            if event.signature is not None:
                part["thoughtSignature"] = event.signature
            return self._parts(event.choice, [part])
        if kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            wire = tiny(encode_response, call=event.call, losses=self.losses)
            return self._parts(event.choice, wire["candidates"][0]["content"]["parts"])
        if kind is PartReceived:
            assert isinstance(event, PartReceived)
            part_ = event.part
            if type(part_) is TextPart and part_.extras is None:
                base = sum(map(len, self._said.get(event.choice, ())))
                out = self._event(TextDelta(part_.text, event.choice))
                for citation in part_.citations:
                    # Counted in the part's text: placed in the candidate's.
                    start = base + (citation.start if citation.start is not None else 0)
                    end = base + (citation.end if citation.end is not None else len(part_.text))
                    placed = msgspec.structs.replace(citation, start=start, end=end)
                    self._cites.setdefault(event.choice, []).append(placed)
                return out
            if type(part_) is ReasoningPart and part_.redacted is None and part_.provider is None:
                return self._event(ReasoningDelta(part_.text, event.choice, part_.signature))
            wire = tiny(encode_response, part=part_, losses=self.losses)
            candidates = wire.get("candidates") or [{}]
            parts = candidates[0].get("content", {}).get("parts")
            return self._parts(event.choice, parts) if parts else b""
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            self._usage = tiny(encode_response, usage=event.usage).get("usageMetadata")
            return b""
        if kind is Finished:
            assert isinstance(event, Finished)
            wire = tiny(
                encode_response,
                finish=(event.finish_reason, event.raw_finish_reason),
                losses=self.losses,
            )
            candidate = dict(self._heads.get(event.choice, {}))
            candidate.update(self._index(event.choice))
            self._ground(event.choice, candidate)
            reason = wire["candidates"][0].get("finishReason")
            candidate["finishReason"] = reason if reason is not None else _UNSPECIFIED
            self._finishing[event.choice] = candidate
            self._started.add(event.choice)
            self._done.add(event.choice)
            return b""
        return b""  # a call's start and fragments: the call goes out whole when complete

    def _ground(self, key: int, candidate: dict[str, Any]) -> None:
        """Write the candidate's citations as its ``groundingMetadata``, spans in its text.

        The segments count UTF-8 bytes of the candidate's text (no ``partIndex``),
        which Gemini's reader places in its text parts, however the parts merge.
        """
        cites = self._cites.pop(key, None) or []
        kept, hint = self._grounds.pop(key, (None, None))
        if not cites and kept is None:
            return
        path = f"$.choices[{key}].message.content"
        text = "".join(self._said.get(key, ()))
        placed = []
        for n, citation in enumerate(cites):
            end = citation.end if citation.end is not None else len(text)
            if (citation.start or 0) > len(text) or end > len(text):
                self._lose(f"{path}[0].citations[{n}]", CITED_PAST_THE_TEXT)
                continue
            placed.append(_in_the_text(citation))
        enc = Encoding(NAME, self.losses)
        part = TextPart(text, citations=tuple(placed))
        cited = [(0, 0, part, f"{path}[0]")] if placed else []
        metadata = write_grounding(cited, kept if type(kept) is dict else None, hint, enc)
        if metadata is not None:
            candidate[KEY] = metadata

    def _end(self) -> bytes:
        out = self._flush()
        # A stream ends with a finishReason for every candidate: those the events
        # gave none (or no candidate at all) end unspecified, with their other keys.
        keys = sorted(self._started - self._done) or ([] if self._done else [0])
        rest = [
            {**self._heads.get(key, {}), **self._index(key), "finishReason": _UNSPECIFIED}
            for key in keys
        ]
        for key, candidate in zip(keys, rest, strict=True):
            self._ground(key, candidate)
        if rest:
            out += self._chunk(rest)
        elif self._usage is not None and self._usage != self._written:
            out += self._chunk(None)
        return out + self._frames.end()


CITED_PAST_THE_TEXT = "a citation's span goes past the text streamed: left out"


def _in_the_text(citation: Citation) -> Citation:
    """``citation`` without the hint that placed its segment in one part.

    A stream's text parts merge as they are read, so a segment is placed in
    the candidate's text instead.
    """
    own = citation.extras.get(NAME) if citation.extras is not None else None
    shape = own.get(SHAPE) if type(own) is dict else None
    if type(shape) is not str or "p" not in shape:
        return citation
    assert citation.extras is not None
    assert type(own) is dict
    extras = {**citation.extras, NAME: {**own, SHAPE: shape.replace("p", "")}}
    return msgspec.structs.replace(citation, extras=extras)


def stream_encoder(
    head: Response | None = None,
    *,
    framing: GeminiFraming = "sse",
    losses: list[Loss] | None = None,
) -> GeminiStreamEncoder:
    r"""An encoder for a Gemini ``streamGenerateContent`` stream: events in, bytes out.

    Sans-IO: :meth:`~GeminiStreamEncoder.encode` takes one stream event (as
    any family's decoder makes them) and returns the bytes to send at once;
    :meth:`~GeminiStreamEncoder.finish` returns the last chunk (and the
    array's closing bracket): a candidate the events gave no finish reason
    (candidate 0, after no event at all) ends there with
    ``FINISH_REASON_UNSPECIFIED``, so the stream always reads to its end.

    Parameters
    ----------
    head : Response, optional
        Where the envelope comes from: ``model`` (``modelVersion``), ``id``
        (``responseId``) and the keys kept in ``extras["gemini"]`` (each
        candidate's ``safetyRatings``, ``citationMetadata``...). Its
        content, calls, usage and finish reasons are not used.
    framing : {"sse", "json-array"}, default "sse"
        ``alt=sse`` events, or the JSON array Gemini sends without it.
    losses : list of Loss, optional
        Where to report what the stream cannot carry.

    Examples
    --------
    >>> import json
    >>> from chatcodec import Response
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec.providers import gemini
    >>> encoder = gemini.stream_encoder(Response(model="gemini-2.5-flash"))
    >>> chunk = json.loads(encoder.encode(TextDelta("Hi"))[6:])
    >>> chunk["candidates"][0]["content"], chunk["modelVersion"]
    ({'parts': [{'text': 'Hi'}], 'role': 'model'}, 'gemini-2.5-flash')
    """
    return GeminiStreamEncoder(head, framing=framing, losses=losses)


@refuses_depth
def encode_stream(
    response: Response, *, framing: GeminiFraming = "sse", losses: list[Loss] | None = None
) -> bytes:
    """Write a whole response as the stream Gemini would have sent for it.

    One chunk per part, each with its candidate's index and the envelope;
    the last chunk has every candidate's last part, finish reason and other
    keys, and the usage. The stream decodes to the response
    :func:`decode_response` gives for :func:`encode_response`'s body, except
    that two text parts in a row merge, as Gemini's own chunks do, and that
    a stream always reads to its end: a candidate with no finish reason ends
    with ``FINISH_REASON_UNSPECIFIED`` (read back as no reason, that name
    kept), and a response with no candidate (and no blocked prompt) gets an
    empty candidate 0 that ends so, as :func:`stream_encoder` writes them.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    framing : {"sse", "json-array"}, default "sse"
        ``alt=sse`` events, or the JSON array Gemini sends without it.
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    """
    frames = _Frames(framing)
    body = loads(encode_response(response, losses=losses))
    top = {k: v for k, v in body.items() if k not in ("candidates", "usageMetadata")}
    out = []
    candidates = body.get("candidates")
    last: list[Any] = []
    for place, candidate in enumerate(candidates if type(candidates) is list else ()):
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        if type(content) is dict and "parts" in content and type(parts) is not list:
            # A body keeps such a value as it came; a chunk's parts are a list, by rule.
            candidate["content"] = {k: v for k, v in content.items() if k != "parts"}
            if losses is not None:
                losses.append(Loss(f"$.candidates[{place}].content.parts", NO_STREAM_FORM))
        if type(parts) is not list or len(parts) < 2:
            last.append(candidate)
            continue
        index = {"index": candidate["index"]} if "index" in candidate else {}
        for part in parts[:-1]:
            piece = {**content, "parts": [part]}
            out.append(frames.frame({"candidates": [{"content": piece, **index}], **top}))
        last.append({**candidate, "content": {**content, "parts": parts[-1:]}})
    # Every candidate ends with a finishReason, as stream_encoder's finish()
    # writes them: one the response gave none ends unspecified, and so does
    # candidate 0 of a response with none (unless its prompt was blocked).
    for candidate in last:
        if "finishReason" not in candidate:
            candidate["finishReason"] = _UNSPECIFIED
    feedback = body.get("promptFeedback")
    if not last and not (type(feedback) is dict and feedback.get("blockReason")):
        last.append({"finishReason": _UNSPECIFIED})
    final = dict(body)
    if candidates is not None or last:
        final["candidates"] = last
    out.append(frames.frame(final))
    out.append(frames.end())
    return b"".join(out)
