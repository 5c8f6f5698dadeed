"""What every provider stream decoder shares: framing, order of calls, errors.

A stream decoder is sans-IO: :meth:`StreamDecoder.feed` takes bytes as they
arrive (split anywhere) and returns events; :meth:`StreamDecoder.finish` ends
the stream and returns the same :class:`~chatcodec.Response` the provider's
non-streaming decoder gives for the equivalent body. Each provider's decoder
folds its chunks into that body (the way the provider itself would have sent
it) and decodes it with its own ``decode_response``, so streamed and
non-streamed answers go through one mapping.

Subclasses implement ``_frame`` (one payload in, events out) and
``_response`` (the response so far).
"""

from __future__ import annotations

import abc

import msgspec

from .._errors import ChatCodecError, StreamError
from .._events import StreamEvent
from .._exchange import Response
from .._framing import Deframer, Framing, Pair

__all__ = ["StreamDecoder"]


class StreamDecoder(abc.ABC):
    """Base of the provider stream decoders.

    Parameters
    ----------
    framing : {"sse", "ndjson", "json-array"}, optional
        How the stream is framed; detected from its first bytes if omitted.
    """

    __slots__ = ("_deframer", "_done", "_error", "_pairs")

    def __init__(self, framing: Framing | None = None) -> None:
        self._deframer = Deframer(framing)
        # The framing reader's own feed once the framing is known: one call less per read.
        self._pairs = self._deframer.pair_feeder()
        self._done = False
        self._error: StreamError | None = None

    def feed(self, data: bytes) -> list[StreamEvent]:
        """Take the next bytes of the stream; return the events they complete.

        Raises
        ------
        StreamError
            When the stream reports an error or is malformed (``partial``
            holds the response so far), or after :meth:`finish`.
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
            self._frames(frames, events)
        except (ChatCodecError, msgspec.DecodeError, UnicodeError) as exc:
            raise self._fail(exc) from None
        return events

    def flush(self) -> list[StreamEvent]:
        """End the input; return the events its last bytes complete."""
        if self._done:
            return []
        if self._error is not None:
            raise self._error
        events: list[StreamEvent] = []
        try:
            self._frames(self._deframer.finish_pairs(), events)
            self._end(events)
        except (ChatCodecError, msgspec.DecodeError, UnicodeError) as exc:
            raise self._fail(exc) from None
        self._done = True
        return events

    def finish(self) -> Response:
        """End the stream and return the whole response.

        Raises
        ------
        StreamError
            As :meth:`feed`; also when the stream stopped in a way that
            leaves no response (cut off inside its framing).
        """
        if not self._done:
            self.flush()
        try:
            return self._response()
        except ChatCodecError as exc:
            raise self._fail(exc) from None

    def _fail(self, exc: Exception) -> StreamError:
        if isinstance(exc, StreamError) and exc.partial is not None:
            error = exc
        else:
            message = str(exc) if isinstance(exc, ChatCodecError) else "a payload is not JSON"
            error = StreamError(message, partial=self._partial())
        self._error = error
        return error

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
