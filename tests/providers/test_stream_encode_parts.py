"""Runs of text, reasoning, refusals and calls: written, cut anywhere, read back part by part."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus import random_sizes
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import Raw
from readers import decode, encode_events

from chatcodec import FinishReason, Response, Usage
from chatcodec._content import ReasoningPart, RefusalPart, TextPart
from chatcodec._events import (
    Finished,
    PartReceived,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallCompleted,
    UsageReported,
)
from chatcodec._stream import ToolCallArgumentsDelta, ToolCallStarted
from chatcodec._tools import ToolCall

TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=8)
PIECE = st.tuples(st.sampled_from(["text", "reasoning", "refusal"]), TEXT)
CALL = st.tuples(
    st.just("call"),
    st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), st.integers(), max_size=3),
)
KINDS = {"text": TextPart, "reasoning": ReasoningPart, "refusal": RefusalPart}


def events_of(
    steps: list[Any], cuts: int, refusals: bool
) -> tuple[list[StreamEvent], list[Any], list[Any]]:
    """The events of ``steps``; the parts they make (runs of one kind) and the calls.

    Without ``refusals`` (Bedrock has no refusal block) a refusal is text.
    """
    events: list[StreamEvent] = []
    parts: list[list[Any]] = []
    calls: list[Any] = []
    last = None
    for kind, value in steps:
        if kind == "call":
            slot = len(calls)
            text = json.dumps(value)
            events.append(ToolCallStarted(slot, f"call_{slot}", "f"))
            step = max(1, len(text) // cuts)
            for at in range(0, len(text), step):
                events.append(ToolCallArgumentsDelta(slot, text[at : at + step]))
            events.append(
                ToolCallCompleted(slot, ToolCall(f"call_{slot}", "f", Raw(text.encode())))
            )
            calls.append(value)
            last = None
            continue
        event = {"text": TextDelta, "reasoning": ReasoningDelta, "refusal": RefusalDelta}[kind]
        events.append(event(value))
        if kind == "refusal" and not refusals:
            kind = "text"
        if kind == last:
            parts[-1][1] += value
        else:
            parts.append([kind, value])
        last = kind
    return events, [tuple(part) for part in parts], calls


@pytest.mark.parametrize("family", ["openai-responses", "bedrock"])
@settings(max_examples=60, deadline=None)
@given(steps=st.lists(PIECE | CALL, max_size=8), cuts=st.integers(1, 4), seed=st.integers(0, 99))
def test_parts_come_back(family: str, steps: list[Any], cuts: int, seed: int) -> None:
    events, parts, calls = events_of(steps, cuts, family != "bedrock")
    events += [
        Finished(FinishReason.TOOL_CALLS if calls else FinishReason.STOP),
        UsageReported(Usage(1, 2)),
    ]
    raw = encode_events(family, events, Response(id="r1", model="m"), losses=[])
    decoded = decode(family, raw, random_sizes(len(raw), seed))[1]
    message = decoded.message
    content = () if message is None or isinstance(message.content, str) else message.content or ()
    if message is not None and isinstance(message.content, str):
        content = (TextPart(message.content),) if message.content else ()
    got = [
        (next(k for k, t in KINDS.items() if type(p) is t), p.text)  # type: ignore[union-attr]
        for p in content
    ]
    assert got == parts
    assert [c.arguments_dict() for c in decoded.tool_calls] == calls
    assert decoded.usage is not None
    assert decoded.usage.completion_tokens == 2


NAME = st.sampled_from([None, "f", "g"])
PARTS = st.sampled_from(
    [
        TextPart("whole"),
        ReasoningPart("thought", signature="sig", provider="anthropic"),
        ReasoningPart("", redacted="opaque", provider="anthropic"),
        RefusalPart("no"),
    ]
)
SLOT = st.integers(0, 2)
ANY_EVENT = st.one_of(
    st.builds(TextDelta, TEXT),
    st.builds(ReasoningDelta, TEXT | st.just(""), signature=st.none() | st.just("sig")),
    st.builds(RefusalDelta, TEXT),
    st.builds(PartReceived, PARTS),
    st.tuples(st.just("start"), SLOT, st.booleans(), NAME),
    st.builds(ToolCallArgumentsDelta, SLOT, st.sampled_from(['{"a"', ":1}", "{}", "x"])),
    st.tuples(st.just("complete"), SLOT),
    st.builds(UsageReported, st.builds(Usage, st.integers(0, 9), st.integers(0, 9))),
    st.builds(Finished, st.sampled_from(list(FinishReason))),
)


def ordered(drawn: list[Any]) -> list[StreamEvent]:
    """Events in any order, with what a decoder keeps: a call per slot, its id its own."""
    events: list[StreamEvent] = []
    seen: set[int] = set()  # slots started or completed
    completed: set[int] = set()
    for item in drawn:
        if type(item) is tuple and item[0] == "start":
            _, slot, has_id, name = item
            if slot not in seen:
                seen.add(slot)
                events.append(ToolCallStarted(slot, f"call_{slot}" if has_id else None, name))
        elif type(item) is tuple:
            slot = item[1]
            if slot not in completed:
                seen.add(slot)
                completed.add(slot)
                events.append(ToolCallCompleted(slot, ToolCall(f"call_{slot}", "f", Raw(b"{}"))))
        elif type(item) is ToolCallArgumentsDelta:
            if item.slot in seen and item.slot not in completed:
                events.append(item)
        else:
            events.append(item)
    return events


@pytest.mark.parametrize("family", ["openai-responses", "bedrock"])
@settings(max_examples=150, deadline=None)
@given(drawn=st.lists(ANY_EVENT, max_size=12), seed=st.integers(0, 99))
def test_any_order_makes_a_stream_its_decoder_reads(
    family: str, drawn: list[Any], seed: int
) -> None:
    """Whatever the order, the bytes are a whole stream of the family, read to its end."""
    events = ordered(drawn)
    raw = encode_events(family, events, Response(id="r1", model="m"), losses=[])
    decoded = decode(family, raw, random_sizes(len(raw), seed))[1]
    text = "".join(e.text for e in events if type(e) is TextDelta)
    assert decoded.message is not None or not text
