"""The tool-call accumulator: fragments in, complete tool calls out. No I/O.

Streams send tool calls in pieces (:class:`ToolCallDelta`), and providers do
it differently: OpenAI sends the id and name once and then argument text by
``index``; Mistral, Groq and Gemini's OpenAI endpoint send whole calls with no
index; vLLM repeats an index within one chunk; some reuse an index for a new
call.  Rules, in order, for where a fragment belongs:

1. With an index (``0`` is an index; ``"0"`` is ``0``): the call last seen at
   that index, unless the fragment brings an id different from that call's id,
   which starts a new call at that index.
2. Without an index, with an id: the call with that id; else the latest call,
   if it has no id yet; else a new call.
3. Without an index or id, with a name: the latest call if it has no name yet;
   else a new call.
4. Otherwise: the latest call (a new one if there is none).

Argument fragments are kept in a list per call and joined once, at
:meth:`ToolCallAccumulator.finish`, so feeding costs O(fragment) whatever the
length so far.  Nothing is decided before the end: a call whose text happens
to parse halfway is not closed early.  At the end each call is complete (a JSON
object), or an :class:`InvalidToolCall` that keeps its text and says why:
truncated (the text stopped mid-JSON), not valid JSON, valid JSON that is not
an object, or empty.

What a stream may make is bounded: ``max_tool_calls`` calls, each with at most
``max_arguments`` characters of arguments. Past a limit, :meth:`feed` raises
a :class:`~chatcodec.StreamError` naming it (``.limit``) and drops every call;
a preview after that raises the same kind of error, naming the same limit.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

import msgspec
from msgspec import Raw

from ._errors import NotFoundError, StreamError, ValidationError
from ._framing import DEFAULT_LIMITS, over_limit
from ._preview import PartialJSON
from ._record import Record, json_decoder
from ._tools import InvalidToolCall, ToolCall, ToolCallDelta

__all__ = [
    "Event",
    "StreamedToolCalls",
    "ToolCallAccumulator",
    "ToolCallArgumentsDelta",
    "ToolCallEvent",
    "ToolCallStarted",
]


class Event(msgspec.Struct, frozen=True):
    """Base of the stream events: small frozen values whose repr shows sizes, not text."""

    # The canonical records' repr and rich repr: each field by type and size,
    # the fields still at their default left out.
    __repr__ = Record.__repr__
    __rich_repr__ = Record.__rich_repr__


class ToolCallStarted(Event, frozen=True):
    """A new tool call began; ``slot`` numbers calls in order of appearance.

    ``choice`` is the answer it belongs to, when a response has several.
    """

    slot: int
    id: str | None
    name: str | None
    choice: int = 0


class ToolCallArgumentsDelta(Event, frozen=True):
    """More argument text for the call in ``slot``."""

    slot: int
    delta: str
    choice: int = 0


ToolCallEvent = ToolCallStarted | ToolCallArgumentsDelta


class StreamedToolCalls(NamedTuple):
    """The calls a stream made, in order, as an assistant message holds them."""

    tool_calls: tuple[ToolCall, ...]
    invalid_tool_calls: tuple[InvalidToolCall, ...]


class _Call:
    __slots__ = ("fragments", "id", "index", "name", "parser", "size", "slot")

    def __init__(
        self, slot: int, index: int | None, id: str | None, name: str | None, preview: bool
    ) -> None:
        self.slot = slot
        self.index = index
        self.id = id
        self.name = name
        self.fragments: list[str] = []
        self.size = 0  # characters of arguments so far
        self.parser = PartialJSON() if preview else None


def _index(value: object) -> int | None:
    """An index as an int; ``"0"`` is 0; anything else is no index."""
    if type(value) is int:
        return value
    # Only ASCII digits: "\u00b2" and other digits int() refuses are no index.
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


class ToolCallAccumulator:
    """Fold streamed tool-call fragments into complete tool calls.

    Shaped like a sans-IO decoder: :meth:`feed` takes one delta and returns the
    events it causes; :meth:`finish` returns the calls.

    Parameters
    ----------
    preview : bool, default False
        Let :meth:`preview` show each call's arguments so far. Feeding costs
        the same either way: the text is parsed when a preview asks for it.
    choice : int, default 0
        The answer (choice, candidate) the calls belong to, put on each event.
    max_arguments : int, optional
        The most characters of arguments one call may have (default 16 MiB).
    max_tool_calls : int, optional
        The most calls (default 10,000).

    Examples
    --------
    >>> acc = ToolCallAccumulator()
    >>> events = acc.feed(ToolCallDelta(0, "call_1", "get_weather", '{"ci'))
    >>> events  # doctest: +NORMALIZE_WHITESPACE
    [ToolCallStarted(slot=0, id=<6 chars>, name=<11 chars>),
     ToolCallArgumentsDelta(slot=0, delta=<4 chars>)]
    >>> _ = acc.feed(ToolCallDelta(0, arguments_delta='ty": "Paris"}'))
    >>> calls, invalid = acc.finish()
    >>> calls[0].arguments_dict()
    {'city': 'Paris'}
    """

    def __init__(
        self,
        *,
        preview: bool = False,
        choice: int = 0,
        max_arguments: int | None = None,
        max_tool_calls: int | None = None,
    ) -> None:
        self._preview = preview
        self._choice = choice
        self._max_arguments = (
            DEFAULT_LIMITS.max_arguments if max_arguments is None else max_arguments
        )
        self._max_calls = (
            DEFAULT_LIMITS.max_tool_calls if max_tool_calls is None else max_tool_calls
        )
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._by_id: dict[str, _Call] = {}
        self._finished = False
        self._dropped: str | None = None  # the limit that dropped every call

    def feed(self, delta: ToolCallDelta) -> list[ToolCallEvent]:
        """Take one fragment; return the events it causes.

        Raises
        ------
        StreamError
            If called after :meth:`finish`, or past a limit (``.limit`` names it).
        ValidationError
            For a new call with the id of another call (ids are unique).
        """
        if self._finished:
            raise StreamError("fed after finish()")
        # Fast path for the usual fragment: an index already seen, text only.
        if delta.id is None and delta.name is None and type(delta.index) is int:
            known = self._by_index.get(delta.index)
            if known is not None:
                text = delta.arguments_delta
                if not text:
                    return []
                known.fragments.append(text)
                known.size += len(text)
                if known.size > self._max_arguments:
                    raise self._over("max_arguments")
                return [ToolCallArgumentsDelta(known.slot, text, self._choice)]
        events: list[ToolCallEvent] = []
        call = self._target(delta, events)
        text = delta.arguments_delta
        if text:
            call.fragments.append(text)
            call.size += len(text)
            if call.size > self._max_arguments:
                raise self._over("max_arguments")
            events.append(ToolCallArgumentsDelta(call.slot, text, self._choice))
        return events

    def _over(self, name: str) -> StreamError:
        """Past a limit: drop every call; the accumulator takes no more."""
        self._calls = []
        self._by_index = {}
        self._by_id = {}
        self._finished = True
        self._dropped = name
        return over_limit(name, self._max_arguments if name == "max_arguments" else self._max_calls)

    def preview(self, slot: int) -> Any:
        """The arguments of the call in ``slot`` so far, parsed as well as can be.

        For user interfaces that show arguments while they stream. Needs
        ``ToolCallAccumulator(preview=True)``. The text is parsed incrementally:
        a preview parses only the text that arrived since the last one, then
        copies the containers still open, so previewing after every fragment
        does not reparse the arguments so far.

        A string value still arriving is shown up to its last complete
        character; a key, number or literal still arriving is left out (a
        number shows once a character after it arrives). ``None`` if nothing
        can be shown yet. Once the text can no longer be JSON, the preview
        stays the value of its longest prefix that could be; whether the
        arguments are valid is decided by :meth:`finish` alone.

        Each call returns a new object: the returned dict or list and every
        container in it that is still open are fresh copies, so changing them
        changes no later preview. Containers already complete (closed with
        ``}`` or ``]``) never change again and are shared between previews:
        copy one (``copy.deepcopy``) before changing it. Nothing a preview
        returns is shared with the calls :meth:`finish` returns.

        Parameters
        ----------
        slot : int
            A slot a :class:`ToolCallStarted` event named: 0 for the first
            call, 1 for the next... A slot counts from the start, never from
            the end: ``-1`` is no slot.

        Raises
        ------
        NotFoundError
            For a slot no call has (``.what`` is ``"tool call slot"``); a
            ``KeyError``.
        StreamError
            Without ``preview=True``; and after :meth:`feed` went past a limit,
            which dropped every call: ``.limit`` names that limit.

        Examples
        --------
        >>> acc = ToolCallAccumulator(preview=True)
        >>> _ = acc.feed(ToolCallDelta(0, "c1", "write", '{"path": "a.txt", "text": "Hel'))
        >>> acc.preview(0)
        {'path': 'a.txt', 'text': 'Hel'}
        """
        if not self._preview:
            raise StreamError("previews need ToolCallAccumulator(preview=True)")
        if self._dropped is not None:
            raise StreamError(
                f"no previews past the limit {self._dropped}: every call was dropped",
                limit=self._dropped,
            )
        calls = self._calls
        if type(slot) is not int or not 0 <= slot < len(calls):
            raise NotFoundError(repr(slot), "tool call slot")
        call = calls[slot]
        assert call.parser is not None  # every call has one when previews are on
        return call.parser.preview(call.fragments)

    def _target(self, delta: ToolCallDelta, events: list[ToolCallEvent]) -> _Call:
        index = _index(delta.index)
        call_id = delta.id or None  # an empty id (Gemini's OpenAI endpoint) is no id
        name = delta.name or None
        latest = self._calls[-1] if self._calls else None
        call: _Call | None
        if index is not None:
            call = self._by_index.get(index)
            if call is not None and call_id is not None and call.id not in (None, call_id):
                call = None  # the index is reused by a new call
        elif call_id is not None:
            call = self._by_id.get(call_id)
            if call is None and latest is not None and latest.id is None and latest.index is None:
                call = latest
        elif name is not None:
            call = latest if latest is not None and latest.name is None else None
        else:
            call = latest
        if call is None:
            if len(self._calls) >= self._max_calls:
                raise self._over("max_tool_calls")
            if call_id is not None and call_id in self._by_id:
                # Another call of that id: the answer would be refused whole at the end.
                raise ValidationError("tool call ids must be unique", "$.tool_calls")
            call = _Call(len(self._calls), index, call_id, name, self._preview)
            self._calls.append(call)
            events.append(ToolCallStarted(call.slot, call_id, name, self._choice))
        else:
            if call.id is None and call_id is not None and call_id in self._by_id:
                raise ValidationError("tool call ids must be unique", "$.tool_calls")
            call.id = call.id or call_id
            call.name = call.name or name
        if index is not None:
            self._by_index[index] = call
        if call.id is not None:
            self._by_id.setdefault(call.id, call)
        return call

    def finish(self) -> StreamedToolCalls:
        """End the stream; return every call, complete or invalid, in order.

        A call that came without an id gets one derived from its position, name
        and arguments: the same on every run, never random.
        """
        self._finished = True
        good: list[ToolCall] = []
        bad: list[InvalidToolCall] = []
        for call in self._calls:
            text = _join(call.fragments)
            name = call.name or ""
            call_id = call.id or _derived_id(call.slot, name, text)
            reason = _problem(text) if name else "tool call has no name"
            if reason is None:
                good.append(ToolCall(call_id, name, Raw(text.encode())))
            else:
                bad.append(InvalidToolCall(call_id, call.name, text, reason))
        return StreamedToolCalls(tuple(good), tuple(bad))


def _join(fragments: list[str]) -> str:
    text = "".join(fragments)
    # A character outside the BMP split between two fragments arrives as two
    # lone surrogates; joined, they must become the one character again.
    try:
        text.encode()
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


_RAW = json_decoder(Raw)


def _problem(text: str) -> str | None:
    """Why ``text`` is not a complete JSON object, or None."""
    if not text.strip():
        return "arguments are empty"
    try:
        _RAW.decode(text)
    except msgspec.DecodeError as exc:
        if str(exc).startswith("Input data was truncated"):
            return "arguments are truncated"
        return "arguments are not valid JSON"
    except RecursionError:
        return "arguments are not valid JSON"
    if not text.lstrip().startswith("{"):
        return "arguments are valid JSON but not an object"
    return None


def _derived_id(slot: int, name: str, text: str) -> str:
    # surrogatepass: a name may hold a lone surrogate (a "\ud800" escape on the wire).
    key = f"{slot}\0{name}\0{text}".encode("utf-8", "surrogatepass")
    digest = hashlib.blake2b(key, digest_size=8).hexdigest()
    return f"call_{digest}"
