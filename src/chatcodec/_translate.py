"""A live stream from one family re-sent as another's: bytes in, bytes out. No I/O.

The source family's decoder turns each read into events; the target
family's stream encoder turns each event into bytes at once. Nothing waits
for the end unless the target needs it whole (Gemini and Ollama send a
tool call whole, so a call leaves when it completes), so memory is what the
decoder keeps for the response plus what the target makes wait (the
Responses API's last event repeats the whole response: its encoder keeps
the items it wrote).

The target's envelope (id, model) is the source's: the encoder is made at
the first event that writes something, from the response so far. Reasoning
signatures are the source family's own: another family gets the reasoning
text without them, and Anthropic, which takes no reasoning it did not sign,
gets none (as its ``encode_response`` does), each reported once as lost.
"""

from __future__ import annotations

from typing import Any

from ._answer_tool import STRUCTURED_OUTPUT, AnswerEvents, StructuredOutput
from ._errors import StreamError, ValidationError
from ._events import ReasoningDelta, StreamEvent, UsageReported
from ._exchange import Response
from ._loss import FOREIGN_SIGNATURE, Loss, LossReport
from .providers import get

__all__ = ["StreamTranslator", "translate_stream"]


class StreamTranslator:
    """Translate a stream as it arrives; made by :func:`translate_stream`, see there."""

    __slots__ = (
        "_answer",
        "_decoder",
        "_encoder",
        "_foreign",
        "_head",
        "_held",
        "_losses",
        "_options",
        "_target",
        "_waiting",
    )

    def __init__(
        self,
        source: str,
        target: str,
        head: Response | None,
        options: dict[str, Any],
        answer_tool: bool = False,
    ) -> None:
        reader: Any = get(source)
        self._decoder: Any = reader.stream()
        self._target: Any = get(target)
        # A reasoning signature is only good for the family that made it.
        self._foreign = reader.NAME != self._target.NAME
        self._head = head
        self._options = options
        self._encoder: Any = None
        self._waiting: list[StreamEvent] = []  # usage reported before the first content
        self._losses: list[Loss] = []
        self._held = b""  # bytes made by a finish() that raised, not returned yet
        self._answer = AnswerEvents(self._losses) if answer_tool else None

    def feed(self, data: bytes) -> bytes:
        """Take the source's next bytes; return the target's bytes they make.

        Raises
        ------
        StreamError
            When the source stream reports an error or is malformed.
        """
        return self._write(self._decoder.feed(data))

    def finish(self, *, allow_incomplete: bool = False) -> tuple[bytes, LossReport]:
        """End the stream: the target's last bytes, and what the target could not carry.

        Parameters
        ----------
        allow_incomplete : bool, default False
            Close the target's stream even when the source's was cut off
            (ended before its family's last event), instead of raising. The
            target's stream then looks complete: its reason is the source's,
            if one came.

        Raises
        ------
        StreamError
            As :meth:`feed`; and, unless ``allow_incomplete``, when the source
            stream was cut off (``partial`` holds the source's response so
            far). The target's stream is left open: a gateway sends an error
            instead, or calls ``finish(allow_incomplete=True)``.
        """
        out = self._held + self._write(self._decoder.flush())
        self._held = b""
        if not allow_incomplete and not self._decoder.complete:
            self._held = out  # the bytes of the source's last events, for the next call
            last = getattr(self._decoder, "_LAST", "its last event")
            raise StreamError(
                f"the source stream was cut off before {last}", partial=self._partial()
            )
        if self._encoder is None:
            self._start()
        out += self._encoder.finish()
        return out, LossReport(tuple(self._losses))

    def flush(self) -> bytes:
        """End the source's input: the target's bytes its last events make.

        The target's stream stays open: :meth:`finish` closes it. Between
        the two, :attr:`complete` says whether the source's stream ended as
        its family ends one, so that a gateway can send the bytes so far and
        then an error instead of closing a stream that was cut off (which
        :meth:`finish` refuses unless told ``allow_incomplete``).

        Raises
        ------
        StreamError
            As :meth:`feed`.
        """
        return self._write(self._decoder.flush())

    @property
    def complete(self) -> bool:
        """Whether the source's last event came (``message_stop``, ``[DONE]``...).

        Its last bytes may bring it: read it after :meth:`flush` or :meth:`finish`.
        """
        return bool(self._decoder.complete)

    @property
    def response(self) -> Response:
        """The source's response so far (whole after :meth:`finish`, if the source was)."""
        if not self._decoder._done:
            return self._partial()
        response: Response = self._decoder.finish(allow_incomplete=True)
        return response

    def _partial(self) -> Response:
        partial: Response | None = self._decoder._partial()
        return partial if partial is not None else Response()

    def _write(self, events: list[StreamEvent]) -> bytes:
        if not events:
            return b""
        encoder = self._encoder
        if encoder is None:
            if all(type(event) is UsageReported for event in events):
                # message_start's usage: wait for content, which brings the envelope.
                self._waiting.extend(events)
                return b""
            encoder = self._start()
        if self._foreign:
            events = self._unsigned(events)
        if self._answer is not None:
            events = self._answer(events)
        return b"".join([encoder.encode(event) for event in events])

    def _unsigned(self, events: list[StreamEvent]) -> list[StreamEvent]:
        """Reasoning without the source's signatures (Anthropic takes no unsigned reasoning)."""
        out: list[StreamEvent] = []
        for event in events:
            if type(event) is ReasoningDelta:
                path = f"$.choices[{event.choice}].message"
                if self._target.NAME == "anthropic":
                    self._lose(path, "anthropic cannot carry reasoning that it did not sign")
                    continue
                if event.signature is not None:
                    self._lose(path, FOREIGN_SIGNATURE)
                    if not event.text:
                        continue  # the signature alone: nothing is left to send
                    event = ReasoningDelta(event.text, event.choice)
            out.append(event)
        return out

    def _lose(self, path: str, reason: str) -> None:
        loss = Loss(path, reason)
        if loss not in self._losses:  # once per stream, not once per delta
            self._losses.append(loss)

    def _start(self) -> Any:
        source = self._partial()
        head = self._head
        if head is None:
            head = Response(id=source.id, model=source.model)
        elif head.id is None or head.model is None:
            head = Response(
                id=head.id if head.id is not None else source.id,
                model=head.model if head.model is not None else source.model,
                extras=head.extras,
            )
        self._encoder = self._target.stream_encoder(head, losses=self._losses, **self._options)
        waiting, self._waiting = self._waiting, []
        for event in waiting:
            self._encoder.encode(event)  # usage is kept, written where the target puts it
        return self._encoder


def translate_stream(
    source: str,
    target: str,
    *,
    head: Response | None = None,
    structured_output: StructuredOutput = "native",
    **options: Any,
) -> StreamTranslator:
    r"""Translate a streamed response from one family's wire format to another's, live.

    Sans-IO: ``feed(bytes)`` takes the source's bytes as they arrive (split
    anywhere) and returns the target's bytes to send now: a text delta leaves
    in the ``feed`` that brought it, a tool call's argument fragments as they
    come (whole, once complete, for Gemini and Ollama, which send calls
    whole). ``finish()`` returns the target's last bytes and a
    :class:`LossReport` of what the target could not carry; a source stream
    cut off before its family's last event makes it raise
    :class:`~chatcodec.StreamError` instead, as the decoders' ``finish()``
    does, and ``finish(allow_incomplete=True)`` closes the target's stream
    anyway.

    Parameters
    ----------
    source, target : str
        Provider names, as for :func:`chatcodec.providers.get`.
    head : Response, optional
        The target's envelope (id, model, the target family's ``extras``,
        such as OpenAI's ``created``, or the Responses API's ``created_at``
        and ``tools``, or Bedrock's ``metrics``). The source's id and model
        fill what it leaves out.
    structured_output : {"native", "tool"}, default "native"
        ``"tool"``: the source answers through the tool
        :data:`chatcodec.ANSWER_TOOL` (a request sent with
        ``convert(..., structured_output="tool")``); its argument fragments
        are sent as answer text as they arrive, and a choice that called
        nothing else finishes with ``stop``, as
        :func:`chatcodec.answer_from_tool` reads a whole response.
    **options
        For the target's stream encoder: ``include_usage`` (OpenAI),
        ``ping`` (Anthropic), ``framing`` (Gemini).

    Raises
    ------
    KeyError
        For a name that is no codec's.
    ValidationError
        When ``structured_output`` is not one of its values.

    Examples
    --------
    >>> from chatcodec import translate_stream
    >>> translator = translate_stream("anthropic", "openai")
    >>> translator.feed(
    ...     b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    ...     b'"type":"message","role":"assistant","model":"claude","content":[],'
    ...     b'"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
    ... )
    b''
    >>> out = translator.feed(
    ...     b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    ...     b'"content_block":{"type":"text","text":""}}\n\n'
    ...     b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    ...     b'"delta":{"type":"text_delta","text":"Hi!"}}\n\n'
    ... )
    >>> b'"content":"Hi!"' in out, b'"id":"msg_1"' in out
    (True, True)
    >>> out = translator.feed(
    ...     b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
    ...     b'event: message_delta\ndata: {"type":"message_delta","delta":'
    ...     b'{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\n'
    ...     b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    ... )
    >>> tail, report = translator.finish()
    >>> tail.endswith(b"data: [DONE]\n\n"), bool(report)
    (True, False)
    """
    if structured_output not in STRUCTURED_OUTPUT:
        raise ValidationError("must be 'native' or 'tool'", "structured_output")
    return StreamTranslator(source, target, head, options, structured_output == "tool")
