"""Responses API streams: typed SSE events in, stream events and a response out.

Every event names its ``type`` and carries a ``sequence_number``. The decoder
keeps the response as the events build it: ``response.created`` gives its
first state, ``response.output_item.added`` / ``.done`` each output item (by
``output_index``), the content part, text, argument and summary events fill
those items in, and ``response.completed`` (``incomplete``, ``failed``) gives
the final body. That body is read by the same function as a non-streaming
answer; a stream cut off before its last event gives the items so far.
An ``error`` event raises :class:`~chatcodec.StreamError`.

A reasoning item's ``encrypted_content`` is a :class:`ReasoningDelta`'s
signature at the item's done event (as Anthropic's ``signature_delta``
ends a thinking block), and the parts of a summary are told apart by a
delta of two newlines at each part after the first: the text the deltas
make is the text of the response's reasoning part, whose summary parts are
joined so.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._content import AssistantPart, ReasoningPart, RefusalPart, TextPart
from ..._errors import StreamError, ValidationError
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
from ..._framing import DEFAULT_LIMITS, Framing, Limits, limits
from ..._frozen import FrozenMap
from ..._stream import ToolCallAccumulator
from ..._tools import InvalidToolCall, ToolCall, ToolCallDelta, parse_tool_call
from .._streaming import StreamDecoder, cut_off
from ._cite import read_annotations
from ._common import NAME, SUMMARY_JOIN, encode_json, opaque
from ._decode_items import (
    Run,
    answer_parts,
    assistant_part,
    kept_whole,
    model_item,
    read_whole,
    reasoning_part,
    unsigned,
)
from ._response import read_response

__all__ = ["ResponsesStreamDecoder", "stream"]

_decode = msgspec.json.Decoder().decode
_UNSAID = "must be the text its output_text deltas gave"
_UNSTREAMED = "must follow what the events gave: no event gave it"
_UNCALLED = "must be the call its events gave"
_UNPARTED = "must be kept whole, as its done event was"
_UNREASONED = "must be reasoning, as its events gave it"
_MISREASONED = "must be the reasoning its deltas gave"
_RENAMED = "must name the call its added event started"
_BACKWARDS = "must not place text before text the events already gave"
_CALLS = frozenset({"function_call", "custom_tool_call"})
_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_STATE = frozenset({"response.created", "response.in_progress", "response.queued"})
_MODELED = frozenset({"message", "function_call", "custom_tool_call", "reasoning"})
_TEXT_KEYS = FrozenMap(
    {
        "response.output_text": ("content", "text"),
        "response.refusal": ("content", "refusal"),
        "response.reasoning_text": ("content", "text"),
        "response.reasoning_summary_text": ("summary", "text"),
    }
)


def _placed(kind: Any, key: str) -> str:
    """The type of a part whose text came with no part event: what the text is."""
    if key == "summary":
        return "summary_text"
    return "reasoning_text" if kind == "reasoning" else "output_text"


PART_INDEX_RULE = "must be the index of a part so far or of the next one"


class ResponsesStreamDecoder(StreamDecoder):
    r"""Decoder of a streamed Responses API answer (sans-IO).

    Parameters
    ----------
    framing : {"sse", "ndjson", "json-array"}, optional
        How the stream is framed; detected from its first bytes if omitted.
    limits : Limits, optional
        What the decoder holds at most (see :func:`stream`).

    Examples
    --------
    >>> from chatcodec import providers
    >>> decoder = providers.get("openai-responses").stream()
    >>> events = decoder.feed(
    ...     b'event: response.output_text.delta\n'
    ...     b'data: {"type":"response.output_text.delta","output_index":0,'
    ...     b'"content_index":0,"delta":"Hi","sequence_number":3}\n\n'
    ... )
    >>> events
    [TextDelta(text=<2 chars>)]
    """

    __slots__ = (
        "_acc",
        "_announced",
        "_base",
        "_closed",
        "_completed",
        "_final",
        "_given",
        "_items",
        "_joined",
        "_last",
        "_misplaced",
        "_parted",
        "_read",
        "_reasoned",
        "_said",
        "_slots",
        "_streamed",
        "_texts",
        "_told",
    )

    _LAST = "response.completed, response.incomplete or response.failed"

    def __init__(self, framing: Framing | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(framing, limits)
        self._base: dict[str, Any] = {}
        self._final: dict[str, Any] | None = None
        # The response read from the final event's body, until another event comes.
        self._read: Response | None = None
        self._items: dict[int, dict[str, Any]] = {}
        # Text fragments by (output index, list key, index in that list, field).
        self._texts: dict[tuple[int, str, int, str], list[str]] = {}
        self._acc = ToolCallAccumulator(
            max_arguments=limits.max_arguments, max_tool_calls=limits.max_tool_calls
        )
        self._slots: dict[int, int] = {}
        self._announced: dict[int, tuple[str, str]] = {}  # a started call's id and name
        self._streamed = 0  # characters of output text so far
        # The output text and refusals the events gave, by (output index, content
        # index, "text" or "refusal"), and the place of the last of them.
        self._said: dict[tuple[int, int, str], list[str]] = {}
        self._last = (-1, -1)
        self._closed: set[int] = set()  # output indexes whose item's done event came
        # What the events gave: output indexes any event came for, and the parts
        # whose text deltas came, by (output index, content index; -1 for reasoning).
        self._given: set[int] = set()
        self._told: set[tuple[int, int]] = set()
        self._completed: dict[int, ToolCall | InvalidToolCall] = {}  # calls given, by index
        # The reasoning text the events gave, by output index (what joins parts
        # included), and the last part of each list it was joined up to, by
        # (output index, list key).
        self._reasoned: dict[int, list[str]] = {}
        self._joined: dict[tuple[int, str], int] = {}
        self._parted: set[int] = set()  # output indexes given whole (one part) when done
        # The first text delta whose part index broke the rule: the response
        # built from the pieces is then refused with it.
        self._misplaced: ValidationError | None = None

    def _frame(self, event: str | None, data: bytes, events: list[StreamEvent]) -> None:
        if data == b"[DONE]":  # OpenRouter ends its Responses streams as Chat streams end
            return
        self._read = None
        payload = _decode(data)
        if type(payload) is not dict:
            raise StreamError("an event is not a JSON object")
        kind = payload.get("type")
        if type(kind) is not str:
            kind = event or ""
        at = payload.get("output_index")
        if type(at) is int and at < 0:
            raise ValidationError("must not be negative", "$.output_index")
        if kind.endswith(".delta"):
            self._delta(kind[:-6], payload, events)
        elif kind == "response.output_item.added":
            self._item_added(payload, events)
        elif kind == "response.output_item.done":
            self._item_done(payload, events)
        elif kind == "response.content_part.added" or kind == "response.content_part.done":
            self._part(payload, "content", "content_index", "part")
        elif kind.startswith("response.reasoning_summary_part."):
            self._part(payload, "summary", "summary_index", "part")
        elif kind.endswith(".done") and kind[:-5] in _TEXT_KEYS:
            key, field = _TEXT_KEYS[kind[:-5]]
            index = "summary_index" if key == "summary" else "content_index"
            value = payload.get(field if field != "refusal" else "refusal")
            if type(value) is str:
                self._set_text(payload, key, index, field, value)
        elif kind == "response.output_text.annotation.added":
            self._annotation(payload, events)
        elif kind == "response.function_call_arguments.done":
            item = self._item(payload)
            if item is not None and type(payload.get("arguments")) is str:
                item["arguments"] = payload["arguments"]
                self._texts.pop((payload["output_index"], "", 0, "arguments"), None)
        elif kind in _FINAL:
            self._finish_event(payload, events)
        elif kind in _STATE:
            response = payload.get("response")
            if type(response) is dict:
                self._base = response
        elif kind == "error":
            code, kind_of = payload.get("code"), payload.get("type")
            named = code if type(code) is str else "an error"
            raise StreamError(
                f"the stream reported {named} (sequence {payload.get('sequence_number')})",
                partial=self._response(),
                provider="openai-responses",
                type=kind_of if type(kind_of) is str else None,
                code=code if type(code) is str else None,
            )

    def _item(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        index = payload.get("output_index")
        return self._items.get(index) if type(index) is int else None

    def _delta(self, kind: str, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        delta = payload.get("delta")
        index = payload.get("output_index")
        if type(delta) is not str or type(index) is not int:
            return
        if kind == "response.function_call_arguments" or kind == "response.custom_tool_call_input":
            field = "arguments" if kind == "response.function_call_arguments" else "input"
            key = (index, "", 0, field)
            self._texts.setdefault(key, []).append(delta)
            if index in self._slots and field == "arguments":  # free input goes out whole
                events += self._acc.feed(ToolCallDelta(index, arguments_delta=delta))
            return
        spelled = _TEXT_KEYS.get(kind)
        if spelled is None:
            return  # a built-in tool's progress: its item's done event holds the result
        key_name, field = spelled
        index_key = "summary_index" if key_name == "summary" else "content_index"
        try:
            at = self._index(payload.get(index_key, 0), index, key_name, index_key)
        except ValidationError as exc:
            # The index only places the text in the response built from the
            # pieces; the event says the text alone. So that response fails.
            self._misplaced = self._misplaced or exc
        else:
            self._texts.setdefault((index, key_name, at, field), []).append(delta)
            if kind != "response.output_text" and kind != "response.refusal":
                self._reason_delta(index, key_name, at, delta, events)
            if delta:
                if kind == "response.output_text" or kind == "response.refusal":
                    self._tell(index, at, field, delta)
                else:
                    self._told.add((index, -1))
                self._given.add(index)
        if kind == "response.output_text":
            self._streamed += len(delta)
            events.append(TextDelta(delta))
        elif kind == "response.refusal":
            events.append(RefusalDelta(delta))
        else:
            events.append(ReasoningDelta(delta))

    def _reason_delta(
        self, index: int, key: str, at: int, delta: str, events: list[StreamEvent]
    ) -> None:
        """Note reasoning text the events give for part ``at`` of ``key`` of the item at ``index``.

        Text of a part past the first comes after what joins the parts before it,
        as the response's reasoning joins them (each join given once, before the
        first text after it: whether a list's parts are the reasoning's text is
        told by their text, not by their events).

        Raises
        ------
        ValidationError
            If the item is one the body reader keeps whole: it holds no reasoning.
        """
        item = self._items.get(index)
        if item is not None and unsigned(item.get("encrypted_content")):
            raise ValidationError(_UNREASONED, "$.output_index")
        said = self._reasoned.setdefault(index, [])
        if delta:
            joined = self._joined.get((index, key), 0)
            if at > joined:
                self._joined[(index, key)] = at
                for _ in range(at - joined):
                    said.append(SUMMARY_JOIN)
                    events.append(ReasoningDelta(SUMMARY_JOIN))
        said.append(delta)

    def _reason(
        self, index: int, part: ReasoningPart, events: list[StreamEvent], where: str
    ) -> None:
        """Give the reasoning of the item at ``index`` (read as ``part``) its events did not.

        Raises
        ------
        ValidationError
            If the events gave other reasoning than the item holds.
        """
        said = "".join(self._reasoned.get(index, ()))
        text = part.text
        if text == said:
            return
        if not text.startswith(said):
            raise ValidationError(_MISREASONED, where)
        rest = text[len(said) :]
        self._reasoned.setdefault(index, []).append(rest)
        self._told.add((index, -1))
        self._given.add(index)
        events.append(ReasoningDelta(rest))

    def _tell(self, index: int, at: int, field: str, text: str) -> None:
        """Note text (or a refusal) the events give for part ``at`` of the item at ``index``.

        Raises
        ------
        ValidationError
            If the part comes before one whose text the events already gave:
            the events would say the answer's text in another order than its
            items hold it.
        """
        if (index, at) < self._last:
            raise ValidationError(_BACKWARDS, "$.output_index")
        self._last = (index, at)
        self._told.add((index, at))
        self._said.setdefault((index, at, field), []).append(text)

    def _item_added(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        item, index = payload.get("item"), payload.get("output_index")
        if type(item) is not dict or type(index) is not int:
            return
        if index in self._items:
            raise ValidationError("an output item is added once", "$.output_index")
        self._items[index] = dict(item)
        kind = item.get("type")
        if kind not in _CALLS:
            return
        call_id, name = item.get("call_id"), item.get("name")
        if type(call_id) is not str or not call_id or type(name) is not str or not name:
            return  # no call the body reader would read: the item comes whole when done
        self._given.add(index)
        self._slots[index] = len(self._slots)
        if kind == "custom_tool_call":
            # Its input is free text, not JSON: the call goes out whole at its item's
            # done event, as a call whose arguments are {"input": text} (as the body
            # decoder reads it). The accumulator only numbers it among the calls.
            self._acc.feed(ToolCallDelta(index, "", "", None))
        else:
            arguments = item.get("arguments")
            text = arguments if type(arguments) is str and arguments else None
            self._announced[index] = (call_id, name)
            events += self._acc.feed(ToolCallDelta(index, call_id, name, text))

    def _item_done(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        item, index = payload.get("item"), payload.get("output_index")
        if type(item) is not dict or type(index) is not int:
            return
        if index in self._closed:
            raise ValidationError("an output item is done once", "$.output_index")
        self._items[index] = item
        self._closed.add(index)
        for key in [key for key in self._texts if key[0] == index]:
            del self._texts[key]
        kind = item.get("type")
        if kind is not None and type(kind) is not str:
            raise ValidationError("must be a string", "$.item.type")
        if kind in _CALLS and index not in self._slots:
            # A call whose added event did not name it, or an item the body reader
            # keeps whole: said now, as the reader reads it.
            run = Run()
            model_item(item, kind, None, run)
            self._given.add(index)
            if run.calls or run.invalid:
                self._say(index, run, events)
            else:
                self._part_whole(index, item, events)
        elif kind == "function_call":
            call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
            if type(call_id) is str and type(name) is str and type(arguments) is str:
                if self._announced.get(index, (call_id, name)) != (call_id, name):
                    raise ValidationError(_RENAMED, "$.item")
                call = parse_tool_call(call_id, name, arguments)
                self._completed[index] = call
                events.append(ToolCallCompleted(self._slots[index], call))
        elif kind == "custom_tool_call":
            call_id, name, text = item.get("call_id"), item.get("name"), item.get("input")
            if type(call_id) is str and type(name) is str and type(text) is str:
                call = parse_tool_call(call_id, name, encode_json({"input": text}))
                if type(call) is ToolCall:
                    # A custom_tool_call, written back as one by this family (extras of its own).
                    custom = {NAME: {"~custom": 1}}
                    call = ToolCall(call.id, call.name, call.arguments, extras=custom)
                self._completed[index] = call
                events.append(ToolCallCompleted(self._slots[index], call))
        elif kind == "reasoning":
            part = reasoning_part(item)
            if part is None:  # no reasoning the body reader takes: one part
                if (index, -1) in self._told:
                    raise ValidationError(_UNREASONED, "$.item")
                self._part_whole(index, item, events)
                return
            self._reason(index, part, events, "$.item")
            # The item's signature, as Anthropic's signature_delta closes a thinking block:
            # an item with no summary text says nothing else.
            signature = item.get("encrypted_content")
            if type(signature) is str:
                self._given.add(index)
                events.append(ReasoningDelta("", signature=signature))
        elif kind is None or kind == "message":
            if kept_whole(item):  # a message of no shape the body reader takes: one part
                self._part_whole(index, item, events)
            else:
                self._answer_done(index, item, events)
        elif kind not in _MODELED:  # a built-in tool's item, kept whole
            self._part_whole(index, item, events)

    def _part_whole(self, index: int, item: dict[str, Any], events: list[StreamEvent]) -> None:
        """Give an item the body reader keeps whole: one part of the answer."""
        self._given.add(index)
        self._parted.add(index)
        events.append(PartReceived(opaque(item)))

    def _answer_done(self, index: int, item: dict[str, Any], events: list[StreamEvent]) -> None:
        """Give the text of an answer's item that no delta gave (a server sending it whole)."""
        content = item.get("content")
        if item.get("role") != "assistant":
            return  # a user's (or another role's) message: no answer
        if type(content) is str:
            if content and (index, 0) not in self._told:
                self._given.add(index)
                self._tell(index, 0, "text", content)
                self._say_part(TextPart(content), events)
            return
        if not answer_parts(item):
            return
        for at, part in enumerate(item["content"]):
            if (index, at) in self._told:
                continue  # its deltas gave it
            said = assistant_part(part)
            if not isinstance(said, TextPart | RefusalPart):
                continue
            if said.text:
                self._given.add(index)
                self._tell(index, at, "text" if type(said) is TextPart else "refusal", said.text)
                self._say_part(said, events)

    def _index(self, at: Any, index: int, key: str, index_key: str) -> int:
        """``at``, the index of a part of the item at ``index``, checked against what exists.

        An index names a part the item has (from its added event or a part's
        own), a part whose text is coming, or the next one: never more, so an
        index from the wire cannot make the decoder build parts it was not
        sent.

        Raises
        ------
        ValidationError
            If ``at`` is not an integer, is negative or is past the next part.
        """
        if type(at) is not int:
            raise ValidationError("must be an integer", f"$.{index_key}")
        item = self._items.get(index)
        parts = item.get(key) if item is not None else None
        known = len(parts) if type(parts) is list else 0
        if at < 0 or (
            at > known
            and at > 1 + max((k[2] for k in self._texts if k[:2] == (index, key)), default=-1)
        ):
            raise ValidationError(PART_INDEX_RULE, f"$.{index_key}")
        return at

    def _annotation(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        """An annotation of an output text: kept in its part, and given as a citation."""
        item = self._item(payload)
        at, annotation = payload.get("content_index"), payload.get("annotation")
        if item is None or type(at) is not int:
            return
        parts = item.get("content")
        if type(parts) is list and 0 <= at < len(parts) and type(parts[at]) is dict:
            part = parts[at] = dict(parts[at])
            kept = part.get("annotations")
            part["annotations"] = [*(kept if type(kept) is list else ()), annotation]
        cited = read_annotations([annotation])
        if cited is None:
            return
        # Its span counts the part's text: the answer's text so far ends with it.
        pieces = self._texts.get((payload["output_index"], "content", at, "text"), ())
        base = self._streamed - sum(map(len, pieces))
        citation = cited[0]
        if citation.start is not None:
            end = citation.end
            citation = msgspec.structs.replace(
                citation, start=citation.start + base, end=None if end is None else end + base
            )
        events.append(CitationReceived(citation))

    def _part(self, payload: dict[str, Any], key: str, index_key: str, value_key: str) -> None:
        item = self._item(payload)
        at, part = payload.get(index_key), payload.get(value_key)
        if item is None or type(part) is not dict:
            return
        at = self._index(at, payload["output_index"], key, index_key)
        parts = item.get(key)
        if type(parts) is not list:
            parts = item[key] = []
        else:
            parts = item[key] = list(parts)
        while len(parts) <= at:
            parts.append({})
        parts[at] = dict(part)
        for text_key in [k for k in self._texts if k[:3] == (payload["output_index"], key, at)]:
            del self._texts[text_key]

    def _set_text(
        self, payload: dict[str, Any], key: str, index_key: str, field: str, value: str
    ) -> None:
        item = self._item(payload)
        if item is None:
            return
        at = self._index(payload.get(index_key), payload["output_index"], key, index_key)
        parts = item.get(key)
        if type(parts) is list and at < len(parts) and type(parts[at]) is dict:
            parts[at] = {**parts[at], field: value}
            self._texts.pop((payload["output_index"], key, at, field), None)

    def _check_said(self, output: Any) -> None:
        """Refuse a final body whose output text is not what the events said, part by part.

        Each text the deltas gave is the text of an assistant message's part
        at their place: a body with other text there, or no such part, would
        give a response without the text the events said.
        """
        if not self._said or type(output) is not list:
            return
        for (index, at, field), pieces in self._said.items():
            if _text_at(output, index, at, field) != "".join(pieces):
                where = f"$.response.output[{index}].content[{at}].{field}"
                raise ValidationError(_UNSAID, where)

    def _finish_event(self, payload: dict[str, Any], events: list[StreamEvent]) -> None:
        response = payload.get("response")
        if type(response) is not dict:
            raise StreamError("a final event has no response object")
        self._final = response
        if self._misplaced is not None:
            raise self._misplaced  # text the events gave at no place the body can have
        output = self._body().get("output")
        self._check_said(output)
        final = self._read = self._response()
        message = final.choices[0].message if final.choices else None
        if message is None:
            if self._given:
                # Items the reply does not hold (a user message...) are kept whole
                # in the response: then it has no answer, and the events gave one.
                raise ValidationError("must hold only what the model made", "$.response.output")
        else:
            self._unsaid(output, events)
        if final.usage is not None:
            events.append(UsageReported(final.usage))
        choice = final.choices[0] if final.choices else None
        if choice is not None:
            events.append(Finished(choice.finish_reason, choice.raw_finish_reason))

    def _unsaid(self, output: Any, events: list[StreamEvent]) -> None:
        """Give what the final body holds and no event gave, after the rest.

        A server may send an item, or a whole answer, in the last event alone
        (or an item's added event, and the item whole only in the last):
        its events come now, so that the events say what the response holds.
        Text, a refusal or a call no event gave, before text or a call they
        gave, would change the answer's order, and the stream is refused;
        other parts (a built-in tool's item, reasoning) come late.

        Raises
        ------
        ValidationError
            If text, a refusal or a call no event gave comes before one they gave.
        """
        if type(output) is not list:
            return
        pieces: list[tuple[int, int, AssistantPart | Run]] = []
        last = (-1, -1)  # the place of the last text or call the events gave
        for index, item in enumerate(output):
            if type(item) is not dict:
                continue
            kind = item.get("type")
            if answer_parts(item):
                for at, part in enumerate(item["content"]):
                    if (index, at) in self._told:
                        last = (index, at)
                    else:
                        pieces.append((index, at, assistant_part(part)))
                continue
            if kind is None or kind == "message":
                given = index in self._given  # its done event says nothing
            elif kind == "function_call" or kind == "custom_tool_call":
                given = index in self._slots or index in self._given
                if index in self._completed:
                    self._same_call(index, item)
                    last = (index, -1)
                    continue
            elif kind == "reasoning":
                given = (index, -1) in self._told or index in self._closed
                if given and index not in self._parted:
                    # The events gave reasoning (or its signature): the body holds it.
                    part = reasoning_part(item)
                    if part is None:
                        raise ValidationError(_UNREASONED, f"$.response.output[{index}]")
                    self._reason(index, part, events, f"$.response.output[{index}]")
            else:
                given = index in self._given or index in self._closed
            if given:
                if index in self._slots:
                    last = (index, -1)
                if index not in self._closed or index in self._slots:
                    self._close(index, item, events)  # no done event, or one without a call
                continue
            run = Run()
            model_item(item, kind, item.get("role"), run)
            pieces.append((index, -1, run))  # the whole item
        for index in self._parted:
            # An item given whole when done is one the body holds whole, in its place.
            item = output[index] if index < len(output) else None
            if type(item) is not dict or not read_whole(item):
                raise ValidationError(_UNPARTED, f"$.response.output[{index}]")
        for index in self._slots:
            # A call the events started or gave is a call of the body, in its place.
            item = output[index] if index < len(output) else None
            if type(item) is not dict or item.get("type") not in _CALLS:
                raise ValidationError(_UNCALLED, f"$.response.output[{index}]")
            if index not in self._completed:
                raise ValidationError(_UNCALLED, f"$.response.output[{index}]")
        for index, at, piece in pieces:
            ordered = self._say(index, piece, events)
            if ordered and (index, at) < last:
                where = f"$.response.output[{index}]" + (f".content[{at}]" if at >= 0 else "")
                raise ValidationError(_UNSTREAMED, where)

    def _same_call(self, index: int, item: dict[str, Any]) -> None:
        """Refuse a final body whose call at ``index`` is not the one the events completed."""
        given = self._completed[index]
        call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
        if (
            type(given) is ToolCall
            and item.get("type") == "function_call"
            and call_id
            and call_id == given.id
            and name
            and name == given.name
            and type(arguments) is str
            and bytes(given.arguments) == arguments.encode("utf-8", "surrogatepass")
        ):
            return  # the body reader reads the item as this call: no need to read it
        found = _calls_of(item)
        if len(found) != 1 or _call_key(found[0]) != _call_key(given):
            raise ValidationError(_UNCALLED, f"$.response.output[{index}]")

    def _close(self, index: int, item: dict[str, Any], events: list[StreamEvent]) -> None:
        """The events of an item given in part: its call, its reasoning's signature."""
        run = Run()
        model_item(item, item.get("type"), item.get("role"), run)
        calls: list[ToolCall | InvalidToolCall] = [*run.calls, *run.invalid]
        for call in calls:
            if self._announced.get(index, (call.id, call.name)) != (call.id, call.name):
                raise ValidationError(_UNCALLED, f"$.response.output[{index}]")
            self._completed[index] = call
            events.append(ToolCallCompleted(self._slots[index], call))
        for part in run.parts:
            if type(part) is ReasoningPart and part.signature is not None:
                events.append(ReasoningDelta("", signature=part.signature))

    def _say(self, index: int, piece: AssistantPart | Run, events: list[StreamEvent]) -> bool:
        """Give ``piece`` of the item at ``index`` as events: whether text or a call came."""
        if not isinstance(piece, Run):
            return self._say_part(piece, events)
        ordered = False
        for part in piece.parts:
            ordered = self._say_part(part, events) or ordered
        calls: list[ToolCall | InvalidToolCall] = [*piece.calls, *piece.invalid]
        for call in calls:
            ordered = True
            slot = self._slots[index] = len(self._slots)
            own = (call.extras or {}).get(NAME)
            if type(own) is dict and own.get("~custom"):
                # A custom tool call goes out whole, as when its added event named it.
                self._acc.feed(ToolCallDelta(index, "", "", None))
            else:
                # The accumulator numbers it among the calls and checks its id.
                if isinstance(call, ToolCall):
                    text = bytes(call.arguments).decode()
                else:
                    text = call.arguments
                events += self._acc.feed(ToolCallDelta(index, call.id, call.name, text))
            self._completed[index] = call
            events.append(ToolCallCompleted(slot, call))
        return ordered

    def _say_part(self, part: AssistantPart, events: list[StreamEvent]) -> bool:
        """Give ``part`` as events: whether it was text or a refusal that said something."""
        if type(part) is TextPart:
            base = self._streamed
            if part.text:
                self._streamed += len(part.text)
                events.append(TextDelta(part.text))
            for citation in part.citations or ():
                if citation.start is not None:
                    end = citation.end
                    citation = msgspec.structs.replace(
                        citation,
                        start=citation.start + base,
                        end=None if end is None else end + base,
                    )
                events.append(CitationReceived(citation))
            return bool(part.text)
        if type(part) is RefusalPart:
            if part.text:
                events.append(RefusalDelta(part.text))
            return bool(part.text)
        if type(part) is ReasoningPart:
            if part.text:
                events.append(ReasoningDelta(part.text))
            if part.signature is not None:
                events.append(ReasoningDelta("", signature=part.signature))
        else:
            events.append(PartReceived(part))
        return False

    def _end(self, events: list[StreamEvent]) -> None:
        """Nothing pends: each call completes with its item's done event."""

    def _body(self) -> dict[str, Any]:
        if self._final is not None:
            final = self._final
            if final.get("output") == [] and self._items:
                return {**final, "output": self._output()}
            return final
        return {**self._base, "output": self._output()}

    def _output(self) -> list[Any]:
        if self._misplaced is not None:
            raise self._misplaced
        items = {index: dict(item) for index, item in self._items.items()}
        for (index, key, at, field), pieces in self._texts.items():
            item = items.get(index)
            if item is None:
                continue
            text = "".join(pieces)
            if key == "":
                item[field] = item.get(field, "") + text if type(item.get(field)) is str else text
                continue
            parts = item.get(key)
            parts = list(parts) if type(parts) is list else []
            while len(parts) <= at:
                parts.append({"type": _placed(item.get("type"), key)})
            part = dict(parts[at]) if type(parts[at]) is dict else {}
            part[field] = text
            parts[at] = part
            item[key] = parts
        return [items[index] for index in sorted(items)]

    def _response(self) -> Response:
        if self._read is not None:
            return self._read
        response = read_response(self._body())
        if self._final is not None or not response.choices:
            return response
        # Cut off: the calls whose item never got its done event.
        cut = {
            item.get("call_id")
            for index, item in self._items.items()
            if index in self._slots and index not in self._closed
        }
        return cut_off(response, cut)

    def _complete(self) -> bool:
        return self._final is not None

    def _release(self) -> None:
        self._base, self._items, self._texts, self._final = {}, {}, {}, None
        self._read = None
        self._said = {}
        self._given, self._told, self._completed = set(), set(), {}
        self._parted, self._last, self._announced = set(), (-1, -1), {}
        self._misplaced = None
        self._reasoned, self._joined = {}, {}


def _text_at(output: list[Any], index: int, at: int, field: str) -> str | None:
    """The text (``field``: or refusal) of part ``at`` of the answer's item at ``index``."""
    item = output[index] if index < len(output) else None
    if type(item) is not dict:
        return None
    content = item.get("content")
    if type(content) is str and item.get("role") == "assistant":
        kind = item.get("type")
        answer = at == 0 and field == "text" and (kind is None or kind == "message")
        return content if answer else None
    if not answer_parts(item):
        return None  # no answer, or one kept whole as an opaque part
    parts: list[Any] = item["content"]
    part = parts[at] if at < len(parts) else None
    if part is None or part.get("type") != ("output_text" if field == "text" else "refusal"):
        return None
    text = part.get(field)
    return text if type(text) is str else None


def _calls_of(item: dict[str, Any]) -> list[ToolCall | InvalidToolCall]:
    run = Run()
    model_item(item, item.get("type"), item.get("role"), run)
    return [*run.calls, *run.invalid]


def _call_key(call: ToolCall | InvalidToolCall) -> tuple[str | None, str | None, bytes]:
    if isinstance(call, ToolCall):
        return call.id, call.name, bytes(call.arguments)
    return call.id, call.name, call.arguments.encode()


def stream(
    framing: Framing | None = None,
    *,
    max_line: int | None = None,
    max_event: int | None = None,
    max_arguments: int | None = None,
    max_tool_calls: int | None = None,
) -> ResponsesStreamDecoder:
    """A decoder for a streamed Responses API answer.

    The stream is complete at ``response.completed``, ``response.incomplete``
    or ``response.failed``; ``finish()`` of a stream cut off before raises
    ``StreamError`` (``finish(allow_incomplete=True)`` returns the partial,
    where a call whose item never got its done event is an invalid call whose
    arguments are truncated).

    Parameters
    ----------
    framing : {"sse", "ndjson", "json-array"}, optional
        How the stream is framed; detected from its first bytes if omitted.
    max_line, max_event, max_arguments, max_tool_calls : int, optional
        Limits: the longest line and event of the stream in bytes (default
        32 and 64 MiB), the most characters of one call's arguments (16 MiB)
        and the most tool calls (10,000).

    Returns
    -------
    ResponsesStreamDecoder
        ``feed(bytes) -> events``, ``flush()``, ``finish() -> Response``.
    """
    return ResponsesStreamDecoder(
        framing, limits(max_line, max_event, max_arguments, max_tool_calls)
    )
