"""Hypothesis strategies for every canonical type."""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Sequence
from typing import Any, Literal

import msgspec
from hypothesis import strategies as st

import chatcodec as cc

text = st.text(max_size=40)
nonempty = st.text(min_size=1, max_size=40)
ids = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=16)
names = st.from_regex(r"[A-Za-z0-9_]{1,64}", fullmatch=True)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(text, json_values, max_size=4)
maybe_map = st.none() | st.dictionaries(nonempty, json_values, min_size=1, max_size=3)


@st.composite
def raw_arguments(draw: st.DrawFn) -> msgspec.Raw:
    """A JSON object in one of several layouts: the bytes must survive exactly."""
    obj = draw(json_objects)
    layout = draw(st.sampled_from(["compact", "spaced", "indented", "ascii"]))
    if layout == "compact":
        data = msgspec.json.encode(obj)
    elif layout == "spaced":
        data = json.dumps(obj, ensure_ascii=False).encode()
    elif layout == "indented":
        data = json.dumps(obj, indent=2, ensure_ascii=False).encode()
    else:
        data = json.dumps(obj).encode()
    return msgspec.Raw(data)


b64 = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode())
media = st.sampled_from(["image/png", "image/jpeg", "audio/wav", "application/pdf"])

text_parts = st.builds(cc.TextPart, text, extras=maybe_map)
image_parts = st.one_of(
    st.builds(
        cc.ImagePart,
        url=nonempty,
        detail=st.none() | st.sampled_from(["auto", "low", "high"]),
        extras=maybe_map,
    ),
    st.builds(cc.ImagePart, data=b64, media_type=media, extras=maybe_map),
    st.builds(
        cc.ImagePart,
        url=nonempty,
        recognition=st.none() | st.sampled_from(["vision", "ocr", "auto"]),
        recognized_text=st.none() | text,
        vision_analysis=st.none() | text,
        recognition_error=st.none() | text,
    ),
)
audio_parts = st.one_of(
    st.builds(cc.AudioPart, url=nonempty),
    st.builds(cc.AudioPart, data=b64, media_type=media),
)
file_parts = st.one_of(
    st.builds(cc.FilePart, url=nonempty, filename=st.none() | nonempty),
    st.builds(cc.FilePart, data=b64, media_type=st.none() | media),
    st.builds(cc.FilePart, file_id=nonempty),
)
paths = (
    st.lists(
        st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,8}", fullmatch=True), min_size=1, max_size=3
    )
    .map("/".join)
    .filter(lambda p: ".." not in p.split("/") and p not in (".",))
)


@st.composite
def file_references(draw: st.DrawFn) -> cc.FileReference:
    start = draw(st.none() | st.integers(1, 50))
    end = None if start is None else draw(st.none() | st.integers(start, 60))
    statuses: list[Literal["pending", "resolved", "failed"]] = ["pending", "resolved", "failed"]
    status = draw(st.sampled_from(statuses))
    return cc.FileReference(
        draw(paths.filter(lambda p: p == p.strip("/") and "//" not in p and not p.endswith("/."))),
        start,
        end,
        status,
        content=draw(text) if status == "resolved" else None,
        error=draw(nonempty) if status == "failed" else None,
    )


mcp_resources = st.builds(
    cc.McpResource,
    nonempty,
    nonempty,
    text,
    mime_type=st.none() | media,
    retrieved_at=st.none() | st.datetimes(timezones=st.just(datetime.UTC)),
)
opaque_parts = st.builds(
    cc.OpaquePart,
    st.sampled_from(["anthropic", "gemini"]),
    json_objects.map(lambda o: msgspec.Raw(msgspec.json.encode(o))),
)
content_parts: st.SearchStrategy[cc.ContentPart] = st.one_of(
    text_parts, image_parts, audio_parts, file_parts, file_references(), mcp_resources, opaque_parts
)
assistant_parts: st.SearchStrategy[cc.AssistantPart] = st.one_of(
    text_parts,
    st.builds(
        cc.ReasoningPart,
        text,
        signature=st.none() | nonempty,
        redacted=st.none() | nonempty,
        provider=st.none() | st.sampled_from(["anthropic", "gemini", "openai"]),
    ),
    st.builds(cc.RefusalPart, text),
    opaque_parts,
)

tool_calls = st.builds(
    cc.ToolCall,
    ids,
    names,
    raw_arguments(),
    st.none() | st.sampled_from(["pending", "approved", "denied"]),
    extras=maybe_map,
)
invalid_tool_calls = st.builds(
    cc.InvalidToolCall,
    id=st.none() | ids,
    name=st.none() | text,
    arguments=text,
    error=text,
)
common: dict[str, Any] = {"id": st.none() | ids, "metadata": maybe_map, "extras": maybe_map}

system_messages = st.builds(cc.SystemMessage, nonempty, **common)
developer_messages = st.builds(cc.DeveloperMessage, nonempty, **common)
user_messages = st.builds(
    cc.UserMessage,
    nonempty | st.lists(content_parts, min_size=1, max_size=3).map(tuple),
    **common,
)


@st.composite
def assistant_messages(draw: st.DrawFn) -> cc.AssistantMessage:
    calls = tuple(draw(st.lists(tool_calls, max_size=3, unique_by=lambda c: c.id)))
    taken = {c.id for c in calls}
    invalid = tuple(
        draw(
            st.lists(
                invalid_tool_calls.filter(lambda c: c.id is None or c.id not in taken),
                max_size=2,
                unique_by=lambda c: c.id or object(),
            )
        )
    )
    content: str | tuple[cc.AssistantPart, ...] | None
    parts = st.lists(assistant_parts, max_size=3).map(tuple)
    content = draw(st.none() | text | parts) if calls or invalid else draw(text | parts)
    return cc.AssistantMessage(
        content,
        calls,
        invalid,
        id=draw(common["id"]),
        metadata=draw(maybe_map),
        extras=draw(maybe_map),
    )


tool_details = st.builds(
    cc.ToolResultDetails,
    error_message=st.none() | text,
    recoverable=st.none() | st.booleans(),
    duration=st.none() | st.floats(0, 1e6, allow_nan=False),
    timestamp=st.none() | st.datetimes(timezones=st.just(datetime.UTC)),
    output=st.none() | json_objects,
)
tool_messages = st.builds(
    cc.ToolMessage,
    ids,
    text | st.lists(content_parts, min_size=1, max_size=2).map(tuple),
    is_error=st.booleans(),
    details=st.none() | tool_details,
    **common,
)
control_records = st.builds(
    cc.ControlRecord,
    nonempty,
    st.none() | text,
    st.none() | text,
    parameters=maybe_map,
    id=st.none() | ids,
)

messages: st.SearchStrategy[cc.Message] = st.one_of(
    system_messages, developer_messages, user_messages, assistant_messages(), tool_messages
)

tool_results = st.builds(cc.ToolResult, ids, text, is_error=st.booleans())
usages = st.builds(
    cc.Usage,
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.none() | st.integers(0, 10**9),
    st.none() | st.integers(0, 10**9),
    st.none() | st.integers(0, 10**9),
)
deltas = st.builds(
    cc.ToolCallDelta, st.none() | st.integers(0, 64), st.none() | ids, st.none() | names
)
tool_definitions = st.builds(
    cc.ToolDefinition,
    names,
    st.none() | text.filter(bool),
    st.none()
    | st.dictionaries(text, st.just({"type": "string"}), max_size=3).map(
        lambda props: {"type": "object", "properties": props}
    ),
    strict=st.booleans(),
)


@st.composite
def strict_conversations(draw: st.DrawFn) -> list[cc.Message]:
    """A history that follows the strict policy: system, then turns."""
    out: list[cc.Message] = [draw(system_messages)]
    for turn in range(draw(st.integers(0, 4))):
        out.append(draw(user_messages))
        n_calls = draw(st.integers(0, 2))
        if n_calls:
            calls = [
                cc.ToolCall(f"call_{turn}_{i}", draw(names), draw(raw_arguments()))
                for i in range(n_calls)
            ]
            out.append(cc.AssistantMessage(None, tuple(calls)))
            out.extend(cc.ToolMessage(call.id, draw(text)) for call in calls)
        out.append(cc.AssistantMessage(draw(text)))
    return out


def compact_arguments(history: Sequence[cc.BaseMessage]) -> list[cc.BaseMessage]:
    """``history`` with each call's arguments as compact JSON.

    What a side that keeps arguments as a JSON value (OpenTelemetry's
    messages, LangChain's dicts) gives back.
    """
    out: list[cc.BaseMessage] = []
    for message in history:
        if type(message) is cc.AssistantMessage and message.tool_calls:
            calls = tuple(
                msgspec.structs.replace(
                    call,
                    arguments=msgspec.Raw(msgspec.json.encode(json.loads(bytes(call.arguments)))),
                )
                for call in message.tool_calls
            )
            message = msgspec.structs.replace(message, tool_calls=calls)
        out.append(message)
    return out


provider_tools = st.builds(
    cc.ProviderTool,
    st.sampled_from(["anthropic", "openai", "openai-responses", "gemini"]),
    st.sampled_from(
        [
            b'{"type":"web_search"}',
            b'{"type":"web_search_20250305","name":"web_search"}',
            b'{"name":"f"}',
        ]
    ).map(msgspec.Raw),
)
tool_choices = (
    st.none()
    | st.builds(cc.ToolChoice, st.sampled_from(["auto", "none", "required"]))
    | names.map(lambda name: cc.ToolChoice("tool", name))
)
response_formats = st.none() | st.builds(
    cc.ResponseFormat,
    st.sampled_from(["text", "json_object", "json_schema"]),
    st.none() | st.sampled_from(["answer", "bad name!"]),
    st.none() | st.just({"type": "object", "properties": {"a": {"type": "string"}}}),
    st.none() | st.booleans(),
)
reasonings = st.none() | st.builds(
    cc.Reasoning,
    st.none() | st.sampled_from(["none", "minimal", "low", "medium", "high"]),
    st.none() | st.integers(0, 4096),
)


@st.composite
def requests(draw: st.DrawFn) -> cc.Request:
    """A canonical request: any messages, tools, choice and settings, in or out of range."""

    def maybe(values: list[Any]) -> st.SearchStrategy[Any]:
        return st.none() | st.sampled_from(values)

    return cc.Request(
        tuple(draw(st.lists(messages, max_size=6))),
        model=draw(st.none() | st.sampled_from(["gpt-4o", "claude-sonnet-4-5", "gemini-3-pro"])),
        tools=tuple(draw(st.lists(tool_definitions | provider_tools, max_size=3))),
        tool_choice=draw(tool_choices),
        parallel_tool_calls=draw(st.none() | st.booleans()),
        max_tokens=draw(maybe([0, 8, 1024])),
        temperature=draw(maybe([0.5, 1.0, 3.0])),
        top_p=draw(maybe([0.5, 0.97, 2.0])),
        stop=draw(st.none() | st.lists(st.sampled_from(["END", " "]), max_size=6).map(tuple)),
        response_format=draw(response_formats),
        top_k=draw(maybe([5])),
        seed=draw(maybe([1])),
        reasoning=draw(reasonings),
    )
