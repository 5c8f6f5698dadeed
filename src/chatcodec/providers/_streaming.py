"""What every provider stream decoder shares: framing, order of calls, errors.

A stream decoder is sans-IO: :meth:`StreamDecoder.feed` takes bytes as they
arrive (split anywhere) and returns events; :meth:`StreamDecoder.finish` ends
the stream and returns the same :class:`~chatcodec.Response` the provider's
non-streaming decoder gives for the equivalent body. Each provider's decoder
folds its chunks into that body (the way the provider itself would have sent
it) and decodes it with its own ``decode_response``, so streamed and
non-streamed answers go through one mapping.

A broken stream never passes for a finished answer: bytes that are not the
family's framing raise :class:`~chatcodec.StreamError`, and so does
:meth:`StreamDecoder.finish` when the stream ended before the family's last
event (``.partial`` holds the response so far; ``allow_incomplete=True``
returns it instead). What a stream may hold is bounded by
:class:`~chatcodec._framing.Limits`; past one, the decoder raises a
``StreamError`` naming it and drops what it held.

Subclasses implement ``_frame`` (one payload in, events out), ``_response``
(the response so far) and ``_complete`` (whether the last event came).
"""

from __future__ import annotations

import abc

import msgspec

from .._errors import ChatCodecError, ProviderError, StreamError
from .._events import StreamEvent
from .._exchange import Response
from .._framing import DEFAULT_LIMITS, Deframer, Framing, Limits, Pair
from .._tools import InvalidToolCall

__all__ = ["TRUNCATED", "StreamDecoder", "cut_off"]

TRUNCATED = "arguments are truncated"
"""Why a tool call the stream ended in is invalid."""


class StreamDecoder(abc.ABC):
    """Base of the provider stream decoders.

    Parameters
    ----------
    framing : {"sse", "ndjson", "json-array"}, optional
        How the stream is framed; detected from its first bytes if omitted.
    limits : Limits, optional
        How much the stream may hold.
    """

    __slots__ = ("_deframer", "_done", "_error", "_limits", "_pairs", "_started")

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self._limits = limits
        self._deframer = Deframer(framing, limits)
        # The framing reader's own feed once the framing is known: one call less per read.
        self._pairs = self._deframer.pair_feeder()
        self._done = False
        self._started = False  # a payload has come
        self._error: StreamError | None = None

    def feed(self, data: bytes) -> list[StreamEvent]:
        """Take the next bytes of the stream; return the events they complete.

        Raises
        ------
        StreamError
            When the stream reports an error (``provider``, ``type`` and
            ``code`` say which) or is malformed, or is not the family's
            framing (``partial`` holds the response so far); past a limit
            (``limit`` names it); or after :meth:`finish`.
        """
        if self._done:
            raise StreamError("the stream was fed after finish()")
        if self._error is not None:
            raise self._error
        events: list[StreamEvent] = []
        try:
            pairs = self._pairs
            if pairs is None:
                frames = self._deframer.feed_pairs(data)
                self._pairs = self._deframer.pair_feeder()
            else:
                frames = pairs(data)
            if frames:
                self._started = True
                self._frames(frames, events)
        except _FAILURES as exc:
            raise self._fail(exc) from None
        return events

    def flush(self) -> list[StreamEvent]:
        """End the input; return the events its last bytes complete.

        Calls the stream ended in are completed here (as invalid calls whose
        arguments are truncated, where they were cut off).

        Raises
        ------
        StreamError
            As :meth:`feed`; also when no payload came at all (an empty body,
            only blank lines or comments) or the input stopped inside its
            framing (a JSON-array element).
        """
        if self._done:
            return []
        if self._error is not None:
            raise self._error
        events: list[StreamEvent] = []
        try:
            frames = self._deframer.finish_pairs()
            if frames:
                self._started = True
                self._frames(frames, events)
            if not self._started:
                raise StreamError("the stream ended before its first event")
            self._end(events)
        except _FAILURES as exc:
            raise self._fail(exc) from None
        self._done = True
        return events

    def finish(self, *, allow_incomplete: bool = False) -> Response:
        """End the stream and return the whole response.

        Parameters
        ----------
        allow_incomplete : bool, default False
            Return the response so far when the stream ended before its last
            event (cut off), instead of raising. Its tool calls still cut off
            are :class:`~chatcodec.InvalidToolCall` saying they were truncated.

        Raises
        ------
        StreamError
            As :meth:`feed`; when nothing but blank lines or comments came;
            when the stream stopped inside its framing; and, unless
            ``allow_incomplete``, when it ended before its last event
            (``partial`` holds the response so far).
        """
        if not self._done:
            self.flush()
        elif self._error is not None:
            raise self._error
        try:
            response = self._response()
        except (ChatCodecError, RecursionError) as exc:
            raise self._fail(exc) from None
        if not allow_incomplete and not self._complete():
            raise StreamError(f"the stream ended before {self._LAST}", partial=response)
        return response

    @property
    def complete(self) -> bool:
        """Whether the stream's last event came (``[DONE]``, ``message_stop``...)."""
        return self._complete()

    def _fail(self, exc: Exception) -> StreamError:
        if isinstance(exc, StreamError) and exc.limit is not None:
            # Past a limit: drop what the reader and the decoder hold; the response
            # so far may be what went past it, so there is no partial.
            self._deframer.release()
            self._release()
            error = exc
        elif isinstance(exc, StreamError):
            error = exc
            if error.partial is None and self._started:
                error.partial = self._partial()
        elif isinstance(exc, ProviderError):  # an exception frame: its names, not its message
            error = StreamError(
                str(exc),
                partial=self._partial(),
                provider=exc.provider,
                type=exc.type,
                code=exc.code,
            )
        else:
            if isinstance(exc, ChatCodecError):
                message = str(exc)
            elif isinstance(exc, RecursionError):
                message = "a payload is nested too deeply"
            else:
                message = "a payload is not JSON"
            error = StreamError(message, partial=self._partial())
        # Kept to be raised again: without the frames it was raised in, which
        # hold what the decoder was working on (past a limit, what went past it).
        error.__traceback__ = None
        self._error = error
        return error

    def _reported(self, provider: str, kind: object, code: object = None) -> StreamError:
        """The error the stream itself reported: its type and code, never its message."""
        name = kind if type(kind) is str and kind else None
        number = code if type(code) is int or type(code) is str else None
        said = f" (code {number})" if number is not None else ""
        return StreamError(
            f"{provider} stream error: {name or 'error'}{said}",
            partial=self._partial(),
            provider=provider,
            type=name,
            code=number,
        )

    def _partial(self) -> Response | None:
        try:
            return self._response()
        except Exception:  # what was received may not make a response at all
            return None

    # -- for subclasses -----------------------------------------------------

    def _frames(self, frames: list[Pair], events: list[StreamEvent]) -> None:
        """Take the payloads of one read, in order; a decoder may fold them inline."""
        for event, data in frames:
            self._frame(event, data, events)

    @abc.abstractmethod
    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        """Take one payload (its SSE event name, if any); append the events it completes."""

    @abc.abstractmethod
    def _end(self, events: list[StreamEvent]) -> None:
        """The input ended: complete pending tool calls and such."""

    @abc.abstractmethod
    def _response(self) -> Response:
        """The response so far, as the non-streaming decoder would give it."""

    def _release(self) -> None:  # noqa: B027 - a hook: nothing to drop unless a decoder holds it
        """Drop the response so far (past a limit: the stream is over)."""

    #: What ends a whole stream of the family, for the message of a cut-off one.
    _LAST = "its last event"

    @abc.abstractmethod
    def _complete(self) -> bool:
        """Whether the stream's last event (its family's end of an answer) came."""


# What a payload may raise besides our own errors: msgspec's, bad UTF-8, and
# input nested deeper than the recursion limit (the typed fast paths recurse).
_FAILURES = (ChatCodecError, msgspec.DecodeError, UnicodeError, RecursionError)


def cut_off(response: Response, cut: set[object]) -> Response:
    """``response`` with the calls of ``cut`` (by id) made invalid: their arguments are truncated.

    A call whose block or item never got its closing event was cut off with
    the stream, whatever its arguments say so far. The calls are those of the
    first choice's message (the families that stream one answer).
    """
    message = response.choices[0].message if response.choices else None
    if not cut or message is None:
        return response
    truncated = tuple(
        InvalidToolCall(call.id, call.name, bytes(call.arguments).decode(), TRUNCATED)
        for call in message.tool_calls
        if call.id in cut
    )
    message = msgspec.structs.replace(
        message,
        tool_calls=tuple(call for call in message.tool_calls if call.id not in cut),
        invalid_tool_calls=message.invalid_tool_calls + truncated,
    )
    choice = msgspec.structs.replace(response.choices[0], message=message)
    return msgspec.structs.replace(response, choices=(choice, *response.choices[1:]))
