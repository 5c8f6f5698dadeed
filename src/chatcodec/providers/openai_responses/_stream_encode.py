"""Responses API streams written: events in, typed SSE events out.

The order OpenAI sends and openai-python's ``ResponseStreamState`` folds:
``response.created`` and ``response.in_progress`` with the envelope and no
output; per output item, by its ``output_index``,
``response.output_item.added``, its parts (``response.content_part.added``,
``response.reasoning_summary_part.added``), their deltas
(``response.output_text.delta``, ``response.refusal.delta``,
``response.reasoning_summary_text.delta``,
``response.function_call_arguments.delta``) and their ``.done`` events, and
``response.output_item.done`` with the whole item; last,
``response.completed`` (``response.incomplete``, ``response.failed``, by
the status) holding the whole response: every item, the status and the
usage. Every event has the next ``sequence_number`` (see
:mod:`._stream_items`). That last event is why the encoder keeps the items
it wrote, each part's text joined once the part is done.

Items are numbered in order of appearance. Text goes into a ``message``
item, reasoning into a ``reasoning`` item (its summary, or its
``reasoning_text`` content where the head's item had that), each open while
its kind of event keeps coming (a reasoning delta of two newlines, which
joins two parts of a summary, begins the summary's next part, as the
decoder tells the parts apart); a ``function_call`` item stays open until
its call completes, so calls whose fragments interleave each keep their
own item. A call announced without an id or a name goes out whole once
complete. The head's items give what the events do not say: the ids,
statuses and other keys of its ``message`` and ``reasoning`` items (in
order) and of its ``function_call`` items (by call id).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._content import ReasoningPart, RefusalPart, TextPart
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
from ..._frozen import FrozenMap
from ..._loss import Loss
from ..._stream import ToolCallArgumentsDelta, ToolCallStarted
from .._stream_writer import (
    CITED_NOTHING,
    DIFFERENT_ARGUMENTS,
    LATE_ARGUMENTS,
    StreamEncoder,
    arguments_rest,
    dumps,
    loads,
    report_extras,
    report_read_valid,
    tiny,
)
from .._wire import Encoding
from ._cite import write_annotation
from ._common import NAME, SUMMARY_JOIN
from ._response import encode_response
from ._stream_items import Sequence, adding, item_id, started, text_event, whole_item

__all__ = ["ResponsesStreamEncoder", "encode_stream", "stream_encoder"]


def _id_key(value: Any) -> Any:
    """An item's id as a set member: a string as it is, any other JSON value as its text."""
    return value if type(value) is str else dumps(value)


_FINAL = FrozenMap({"incomplete": "response.incomplete", "failed": "response.failed"})


def _final_event(body: dict[str, Any]) -> str:
    status = body.get("status")
    return _FINAL.get(status, "response.completed") if type(status) is str else "response.completed"


class _Item:
    """One output item being written: its keys, and its parts so far."""

    __slots__ = (
        "field",
        "id",
        "index",
        "item",
        "key",
        "kind",
        "parts",
        "pieces",
        "shells",
        "split",
    )

    def __init__(self, index: int, shell: dict[str, Any], key: str) -> None:
        self.index = index
        self.id = item_id(shell, index)
        self.kind = shell.get("type")
        self.key = key  # where its text goes: "content", "summary" or "arguments"
        self.item = {k: v for k, v in shell.items() if k != key}  # the other keys
        shells = shell.get(key)
        self.shells: list[Any] = shells if type(shells) is list else []  # the head's parts
        self.parts: list[dict[str, Any]] = []  # the parts done, then the open one
        self.field = "text"  # the open part's text field ("refusal" for a refusal)
        self.pieces: list[str] = []  # the open part's text (or the call's arguments) so far
        self.split = False  # the next text goes in a new summary part

    def where(self) -> dict[str, Any]:
        """The fields that place an event of this item (and of its open part)."""
        where: dict[str, Any] = {"item_id": self.id, "output_index": self.index}
        if self.key == "summary":
            where["summary_index"] = len(self.parts) - 1
        elif self.key == "content":
            where["content_index"] = len(self.parts) - 1
        return where


class ResponsesStreamEncoder(StreamEncoder):
    """Write a Responses API stream; made by :func:`stream_encoder`, see there."""

    __slots__ = (
        "_body",
        "_calls",
        "_current",
        "_ended",
        "_messages",
        "_output",
        "_reasonings",
        "_started",
        "_status",
        "_streamed",
        "_tools",
        "_usage",
        "_write",
    )

    @refuses_depth
    def __init__(self, head: Response | None = None, *, losses: list[Loss] | None = None) -> None:
        super().__init__(losses)
        body = loads(encode_response(head)) if head is not None else {}
        self._body: dict[str, Any] = body
        # The head's items, whose keys the events do not carry.
        self._messages: list[dict[str, Any]] = []
        self._reasonings: list[dict[str, Any]] = []
        self._tools: dict[str, dict[str, Any]] = {}
        output = body.get("output")
        for item in output if type(output) is list else ():
            kind = item.get("type") if type(item) is dict else None
            if kind == "message" and type(item.get("content")) is list:
                self._messages.append(item)
            elif kind == "reasoning":
                self._reasonings.append(item)
            elif kind == "function_call" and type(item.get("call_id")) is str:
                self._tools[item["call_id"]] = item
        self._messages.reverse()  # taken from the end: in order
        self._reasonings.reverse()
        self._write = Sequence()
        self._started = False
        self._output: dict[int, Any] = {}  # output index -> the item (whole once done)
        self._current: _Item | None = None  # the open message or reasoning item
        self._calls: dict[int, _Item] = {}  # slot -> its open function_call item
        self._ended: set[int] = set()  # slots whose item the stop closed before their call
        self._usage: Any = None
        self._status: dict[str, Any] = {"status": "completed"}
        self._streamed = 0  # characters of output text written

    # -- items and parts ------------------------------------------------------

    def _begin(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        state = started(self._body)
        write = self._write
        return write("response.created", response=state) + write(
            "response.in_progress", response=state
        )

    def _add(self, shell: dict[str, Any], key: str) -> tuple[bytes, _Item]:
        index = len(self._output)
        item = _Item(index, shell, key)
        self._output[index] = shell
        empty: dict[str, Any] = {key: "" if key == "arguments" else []}
        if item.kind == "reasoning":
            empty["summary"] = []
        added = adding(shell, empty)
        return self._write("response.output_item.added", output_index=index, item=added), item

    def _open_part(self, item: _Item, kind: str, field: str) -> bytes:
        """Close the item's open part and open one of ``kind``."""
        out = self._close_part(item)
        at = len(item.parts)
        shell = item.shells[at] if at < len(item.shells) else None
        if type(shell) is dict and shell.get("type") == kind:
            part = {k: v for k, v in shell.items() if k != field}
            if type(part.get("annotations")) is list:
                part["annotations"] = []  # the events bring them (CitationReceived)
        else:
            part = {"type": kind, "annotations": []} if kind == "output_text" else {"type": kind}
        item.parts.append(part)
        item.field = field
        item.pieces = []
        item.split = False
        added = "response.reasoning_summary_part.added"
        if item.key == "content":
            added = "response.content_part.added"
        return out + self._write(added, **item.where(), part={**part, field: ""})

    def _close_part(self, item: _Item) -> bytes:
        if not item.parts:
            return b""
        text = "".join(item.pieces)
        part = item.parts[-1] = {**item.parts[-1], item.field: text}
        where = item.where()
        kind = text_event(part)
        extra: dict[str, Any] = {"logprobs": []} if kind == "response.output_text" else {}
        done = "response.reasoning_summary_part.done"
        if item.key == "content":
            done = "response.content_part.done"
        write = self._write
        out = write(kind + ".done", **where, **{item.field: text}, **extra)
        return out + write(done, **where, part=part)

    def _done(self, item: _Item) -> bytes:
        """Close an item: its open part, then the item, whole."""
        whole = dict(item.item)
        if item.key == "arguments":
            whole["arguments"] = text = "".join(item.pieces)
            out = self._write(
                "response.function_call_arguments.done", **item.where(), arguments=text
            )
        else:
            out = b""
            if item.split:  # a summary part that stayed empty
                out = self._open_part(item, "summary_text", "text")
            out += self._close_part(item)
            whole[item.key] = item.parts
        if whole.get("status") == "in_progress":
            whole["status"] = "completed"
        self._output[item.index] = whole
        return out + self._write("response.output_item.done", output_index=item.index, item=whole)

    def _close(self) -> bytes:
        """Close the open message or reasoning item."""
        item, self._current = self._current, None
        return self._done(item) if item is not None else b""

    def _open(self, kind: str) -> tuple[bytes, _Item]:
        """The open item of ``kind`` (``message`` or ``reasoning``), opened if need be."""
        item = self._current
        if item is not None and item.kind == kind:
            return b"", item
        out = self._close()
        index = len(self._output)
        key = "content"
        if kind == "message":
            shell = self._messages.pop() if self._messages else None
            if shell is None:
                shell = {"type": "message", "id": item_id({"type": kind}, index)}
                shell.update(status="completed", content=[], role="assistant")
        else:
            shell = self._reasonings.pop() if self._reasonings else None
            if shell is None:
                shell = {"type": "reasoning", "id": item_id({"type": kind}, index), "summary": []}
            content = shell.get("content")
            # Reasoning text goes in the summary, unless the head's item had it as content.
            if not (type(content) is list and content and not shell.get("summary")):
                key = "summary"
        more, item = self._add(shell, key)
        self._current = item
        return out + more, item

    def _text(self, kind: str, field: str, text: str, event: str) -> bytes:
        """``text`` in a part of ``kind`` of the open item of the right kind."""
        out, item = self._open("message" if kind in ("output_text", "refusal") else "reasoning")
        if not item.parts or item.parts[-1].get("type") != kind or item.split:
            out += self._open_part(item, kind, field)
        item.pieces.append(text)
        extra: dict[str, Any] = {"logprobs": []} if event == "response.output_text.delta" else {}
        return out + self._write(event, **item.where(), delta=text, **extra)

    def _cite(self, event: CitationReceived) -> bytes:
        """A citation of the open output text, as an ``annotation.added`` event."""
        item = self._current
        path = f"$.choices[{event.choice}].message"
        if item is None or not item.parts or item.parts[-1].get("type") != "output_text":
            self._lose(path, CITED_NOTHING)
            return b""
        citation = event.citation
        size = sum(map(len, item.pieces))
        if citation.start is not None:
            base = self._streamed - size
            start = citation.start - base
            if start < 0:
                self._lose(path, "a citation's span began before its output text: cut to it")
            end = citation.end
            citation = msgspec.structs.replace(
                citation,
                start=max(start, 0),
                end=None if end is None else max(end - base, max(start, 0)),
            )
        wire = write_annotation(citation, size, Encoding(NAME, self.losses), path + ".citation")
        if wire is None:
            return b""
        part = item.parts[-1]
        notes = part.get("annotations")
        notes = part["annotations"] = [*(notes if type(notes) is list else ()), wire]
        return self._write(
            "response.output_text.annotation.added",
            **item.where(),
            annotation_index=len(notes) - 1,
            annotation=wire,
        )

    def _whole(self, items: Any) -> bytes:
        """Items written whole, each at the next output index."""
        out = self._close()
        for item in items if type(items) is list else ():
            index = len(self._output)
            if type(item) is dict and "id" in item:
                # Each part is written on its own, so ids derived from a part's place repeat.
                # Ids as JSON text: an id from the wire may be any value, hashable or not.
                taken = {_id_key(o.get("id")) for o in self._output.values() if type(o) is dict}
                if _id_key(item["id"]) in taken:
                    item = {**item, "id": item_id({"type": item.get("type")}, index)}
            self._output[index] = item
            out += whole_item(self._write, index, item)
        return out

    # -- events ---------------------------------------------------------------

    def _event(self, event: StreamEvent) -> bytes:
        kind = type(event)
        if kind is UsageReported:
            assert isinstance(event, UsageReported)
            self._usage = tiny(encode_response, usage=event.usage)["usage"]
            return b""
        if getattr(event, "choice", 0) != 0:
            self._lose_once("$.choices[1]", f"{NAME} has one answer per response")
            return b""
        out = self._begin()
        if kind is CitationReceived:
            assert isinstance(event, CitationReceived)
            return out + self._cite(event)
        if kind is TextDelta:
            assert isinstance(event, TextDelta)
            if not event.text:
                return out
            self._streamed += len(event.text)
            return out + self._text("output_text", "text", event.text, "response.output_text.delta")
        if kind is ToolCallArgumentsDelta:
            assert isinstance(event, ToolCallArgumentsDelta)
            call = self._calls.get(event.slot)
            if call is None:
                return out  # no item for the call yet: it goes out whole when complete
            call.pieces.append(event.delta)
            return out + self._write(
                "response.function_call_arguments.delta", **call.where(), delta=event.delta
            )
        if kind is ReasoningDelta:
            assert isinstance(event, ReasoningDelta)
            current = self._current
            if (
                event.text == SUMMARY_JOIN
                and current is not None
                and current.kind == "reasoning"
                and current.key == "summary"
                and current.parts
                and not current.split
            ):
                current.split = True  # what joins two summary parts: the next part begins
            elif event.text:
                more, reasoning = self._open("reasoning")
                part, name = "summary_text", "response.reasoning_summary_text.delta"
                if reasoning.key == "content":
                    part, name = "reasoning_text", "response.reasoning_text.delta"
                out += more + self._text(part, "text", event.text, name)
            if event.signature is not None:
                more, reasoning = self._open("reasoning")
                reasoning.item["encrypted_content"] = event.signature
                out += more + self._close()
            return out
        if kind is RefusalDelta:
            assert isinstance(event, RefusalDelta)
            if not event.text:
                return out
            return out + self._text("refusal", "refusal", event.text, "response.refusal.delta")
        if kind is ToolCallStarted:
            assert isinstance(event, ToolCallStarted)
            out += self._close()
            if event.id is None or event.name is None:
                return out  # an item needs both: the call goes out whole when complete
            shell = {k: v for k, v in self._tools.get(event.id, {}).items() if k != "arguments"}
            if not shell:
                shell = {"type": "function_call"}
            shell.update(call_id=event.id, name=event.name)
            more, call = self._add(shell, "arguments")
            self._calls[event.slot] = call
            return out + more
        if kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            call = self._calls.pop(event.slot, None)
            rest = arguments_rest(call.pieces if call is not None else [], event.call)
            if call is not None:
                report_read_valid(event.call, event.choice, self.losses)
                where = f"$.choices[0].message.tool_calls[{event.slot}]"
                report_extras(NAME, event.call, where, self.losses)
                # What the fragments left unsaid (all, when none came), then the item done.
                if rest is None:
                    self._lose("$.choices[0].message.tool_calls", DIFFERENT_ARGUMENTS)
                elif rest:
                    call.pieces.append(rest)
                    out += self._write(
                        "response.function_call_arguments.delta", **call.where(), delta=rest
                    )
                return out + self._done(call)
            if event.slot in self._ended:
                if rest != "":  # its item was closed at the stop
                    self._lose("$.choices[0].message.tool_calls", LATE_ARGUMENTS)
                return out
            wire = tiny(encode_response, call=event.call, losses=self.losses)["output"]
            known = self._tools.get(event.call.id or "")
            if known is not None and len(wire) == 1:
                wire = [{**known, **wire[0]}]
            return out + self._whole(wire)
        if kind is PartReceived:
            assert isinstance(event, PartReceived)
            return out + self._part(event)
        assert isinstance(event, Finished)
        out += self._close() + self._stop_calls()
        wire = tiny(
            encode_response,
            finish=(event.finish_reason, event.raw_finish_reason),
            losses=self.losses,
        )
        self._status = {k: wire[k] for k in ("status", "incomplete_details") if k in wire}
        return out

    def _part(self, event: PartReceived) -> bytes:
        part = event.part
        if type(part) is TextPart and part.extras is None:
            out = self._event(TextDelta(part.text)) if part.text else b""
            base = self._streamed - len(part.text)
            for citation in part.citations:
                start, end = citation.start, citation.end
                spanned = msgspec.structs.replace(
                    citation,
                    start=base if start is None else base + start,
                    end=base + len(part.text)
                    if start is None
                    else None
                    if end is None
                    else base + end,
                )
                out += self._event(CitationReceived(spanned, event.choice))
            return out
        if type(part) is RefusalPart and part.extras is None:
            return self._event(RefusalDelta(part.text)) if part.text else b""
        if (
            type(part) is ReasoningPart
            and part.redacted is None
            and part.extras is None
            and part.provider in (None, NAME)
        ):
            return self._event(ReasoningDelta(part.text, signature=part.signature))
        wire = tiny(encode_response, part=part, losses=self.losses).get("output")
        return self._whole(wire)

    def _stop_calls(self) -> bytes:
        out = b"".join(self._done(call) for call in self._calls.values())
        self._ended.update(self._calls)
        self._calls.clear()
        return out

    def _final(self) -> dict[str, Any]:
        """The response of the last event: the envelope, the status, every item, the usage."""
        final: dict[str, Any] = {} if "object" in self._body else {"object": "response"}
        final.update(self._body)
        final.update(self._status)
        final["output"] = [self._output[index] for index in sorted(self._output)]
        if self._usage is not None:
            final["usage"] = self._usage
        else:
            final.pop("usage", None)
        return final

    def _end(self) -> bytes:
        out = self._begin() + self._close() + self._stop_calls()
        final = self._final()
        return out + self._write(_final_event(final), response=final)


def stream_encoder(
    head: Response | None = None, *, losses: list[Loss] | None = None
) -> ResponsesStreamEncoder:
    r"""An encoder for a Responses API stream: events in, typed SSE events out.

    Sans-IO: :meth:`~ResponsesStreamEncoder.encode` takes one stream event
    (as any family's decoder makes them) and returns the events to send at
    once; :meth:`~ResponsesStreamEncoder.finish` closes the open items and
    returns ``response.completed`` (``incomplete``, ``failed``) holding the
    whole response.

    Parameters
    ----------
    head : Response, optional
        Where the envelope comes from: ``id``, ``model`` and the keys kept
        in ``extras["openai-responses"]`` (``created_at``, ``tools``,
        ``tool_choice``, ``parallel_tool_calls``..., which openai-python's
        ``Response`` type requires), and the ids, statuses and other keys of
        its items. Its content, calls, usage and status are not used.
    losses : list of Loss, optional
        Where to report what the stream cannot carry (a second answer,
        parts the Responses API has no item for).

    Examples
    --------
    >>> import json
    >>> from chatcodec import Response
    >>> from chatcodec._events import TextDelta
    >>> from chatcodec.providers import openai_responses
    >>> encoder = openai_responses.stream_encoder(Response(id="resp_1", model="gpt-5"))
    >>> raw = encoder.encode(TextDelta("Hi")) + encoder.finish()
    >>> events = [json.loads(line[6:]) for line in raw.splitlines() if line.startswith(b"data: ")]
    >>> [event["type"] for event in events]  # doctest: +NORMALIZE_WHITESPACE
    ['response.created', 'response.in_progress', 'response.output_item.added',
     'response.content_part.added', 'response.output_text.delta', 'response.output_text.done',
     'response.content_part.done', 'response.output_item.done', 'response.completed']
    >>> [event["sequence_number"] for event in events]
    [0, 1, 2, 3, 4, 5, 6, 7, 8]
    """
    return ResponsesStreamEncoder(head, losses=losses)


@refuses_depth
def encode_stream(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write a whole response as the stream the Responses API would have sent for it.

    ``response.created`` and ``response.in_progress``, each output item of
    :func:`encode_response`'s body as OpenAI streams it (added, its parts
    and their text as one delta each, done), and the last event holding
    that body. The stream decodes to the response :func:`decode_response`
    gives for the body.

    Parameters
    ----------
    response : Response
        The answer (from any provider).
    losses : list of Loss, optional
        Where to report what the wire cannot carry.
    """
    body = loads(encode_response(response, losses=losses))
    write = Sequence()
    state = started(body)
    out = [write("response.created", response=state), write("response.in_progress", response=state)]
    output = body.get("output")
    for index, item in enumerate(output if type(output) is list else ()):
        out.append(whole_item(write, index, item))
    out.append(write(_final_event(body), response=body))
    return b"".join(out)
