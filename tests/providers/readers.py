"""Recorded streams of the six families, and the official SDKs' own stream readers.

Shared by the stream encoder and translation tests: which streams there are,
decoding and re-encoding them, and what openai-python (Chat Completions and
Responses), the anthropic SDK, google-genai and botocore make of a stream's bytes.
"""

from __future__ import annotations

import base64
import json
import typing
import warnings
from pathlib import Path
from typing import Any

import botocore.session
import pydantic
import pytest
from anthropic.lib.streaming._messages import accumulate_event
from botocore.eventstream import EventStream
from botocore.parsers import EventStreamJSONParser
from corpus import STREAMS, corpus, run_stream
from google.genai import types as genai
from openai import omit
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent

from chatcodec import Response, StreamError
from chatcodec._events import StreamEvent
from chatcodec._framing import Deframer
from chatcodec.providers import NAMES, get

FAMILIES = NAMES
PREFIXES = {
    "openai": ("openai__", "groq__", "mistral__", "other__"),
    "anthropic": ("anthropic__",),
    "gemini": ("gemini__",),
    "ollama": ("ollama__",),
    "openai-responses": ("openai-responses__",),
    "bedrock": ("bedrock__",),
    "cohere": ("cohere__",),
}

# Streams whose dialect fields no canonical event carries: their events
# re-encoded give the same text and calls, not every dialect key.
DIALECT = {
    # Mistral's typed content lists (a thinking part among the text parts).
    "pydantic-ai__models__test_mistral__test_mistral_model_thinking_part_iter__00",
    # OpenRouter's and Snowflake's reasoning_details entries (ids, formats, signatures).
    "pydantic-ai__models__test_openrouter__test_openrouter_streaming_reasoning__00",
    "pydantic-ai__models__test_openrouter__test_openrouter_stream_with_native_options__00",
    "pydantic-ai__models__test_openrouter__test_openrouter_stream_with_reasoning__00",
    "pydantic-ai__models__test_snowflake__test_snowflake_model_streaming__00",
    "pydantic-ai__models__test_snowflake__test_snowflake_thinking_streaming__00",
    # Groq sends "role": null on its web search chunks.
    "pydantic-ai__models__test_groq__test_groq_model_web_search_tool_stream__00",
}


def stem_of(path: Path) -> str:
    """A stream's name without the curated copy's provider prefix."""
    stem = path.stem
    for prefixes in PREFIXES.values():
        for prefix in prefixes:
            stem = stem.removeprefix(prefix)
    return stem


def recorded(family: str) -> list[Any]:
    """The curated and corpus streams of a family that decode without an error."""
    params = [
        pytest.param(family, path, id=path.stem[:80])
        for path in sorted(STREAMS.glob("*.json"))
        if path.name.startswith(PREFIXES[family])
    ]
    params += [pytest.param(family, p.values[0], id=p.id) for p in corpus(family, "stream")]
    return params


ALL_STREAMS = [param for family in FAMILIES for param in recorded(family)]


def raw_of(path: Path) -> bytes | None:
    """The stream's bytes; None for an excerpt or a stream that ends in an error."""
    data = json.loads(path.read_bytes())
    if data["framing"] == "aws-eventstream":
        return base64.b64decode(data["raw_base64"])
    if not data["raw"] or str(data["framing"]).startswith("docs-excerpt"):
        return None
    raw: bytes = data["raw"].encode()
    return raw


def codec(family: str) -> Any:
    """A family's codec module (the Codec protocol does not list the stream encoders)."""
    return get(family)


def stream_file(name: str) -> Path:
    """The curated stream whose name, after its provider, is ``name``."""
    (path,) = STREAMS.glob(f"*__{name}.json")
    return path


def decode(family: str, raw: bytes, sizes: list[int] | None = None) -> tuple[list[Any], Response]:
    events, response = run_stream(codec(family).stream, raw, sizes)
    return events, response


def recorded_run(family: str, path: Path) -> tuple[list[Any], Response]:
    raw = raw_of(path)
    if raw is None:
        pytest.skip("a documentation excerpt, not a whole stream")
    try:
        return decode(family, raw)
    except StreamError:
        pytest.skip("the recorded stream ends in an error: nothing to write again")


def encode_events(
    family: str, events: list[StreamEvent], head: Response | None, **options: Any
) -> bytes:
    encoder = codec(family).stream_encoder(head, **options)
    raw: bytes = encoder.encode_all(events) + encoder.finish()
    return raw


def sse_payloads(raw: bytes) -> list[tuple[str | None, bytes]]:
    """The payloads of a stream (SSE, or whatever its first bytes say)."""
    deframer = Deframer()
    return [(f.event, f.data) for f in deframer.feed(raw) + deframer.finish()]


def openai_sdk(raw: bytes) -> Any:
    state = ChatCompletionStreamState()
    for _, data in sse_payloads(raw):
        if data != b"[DONE]":
            state.handle_chunk(ChatCompletionChunk.model_validate_json(data))
    return state.current_completion_snapshot


def anthropic_sdk(raw: bytes) -> Any:
    snapshot = None
    buffers: dict[int, bytes] = {}
    for event, data in sse_payloads(raw):
        assert json.loads(data)["type"] == event
        snapshot = accumulate_event(
            event=json.loads(data), current_snapshot=snapshot, json_bufs=buffers
        )
    return snapshot


def gemini_sdk(raw: bytes) -> tuple[str, list[Any]]:
    """The text and the calls google-genai reads from each chunk."""
    text, calls = [], []
    for _, data in sse_payloads(raw):
        chunk = genai.GenerateContentResponse.model_validate_json(data)
        for candidate in chunk.candidates or ():
            for part in (candidate.content.parts if candidate.content else None) or ():
                if part.text and not part.thought:
                    text.append(part.text)
                if part.function_call:
                    calls.append(part.function_call)
    return "".join(text), calls


_RESPONSES_EVENTS: dict[str, Any] = {
    typing.get_args(member.model_fields["type"].annotation)[0]: member
    for member in typing.get_args(typing.get_args(ResponseStreamEvent)[0])
}


def responses_complaints(raw: bytes) -> set[tuple[str, tuple[Any, ...], str]]:
    """What openai-python's event types refuse in a Responses stream: (event, field, error).

    Each event is validated against the type its ``type`` names. The SDK's
    types may ask for fields newer than a recording (``cache_write_tokens``):
    a stream written again is held to what its recording passes. An item is
    named as refused in ``response.output_item``, whether added or done.
    """
    found = set()
    for _, data in sse_payloads(raw):
        if data == b"[DONE]":
            continue  # how OpenRouter ends a Responses stream
        kind = json.loads(data)["type"]
        try:
            _RESPONSES_EVENTS[kind].model_validate_json(data)
        except pydantic.ValidationError as exc:
            for error in exc.errors():
                where = tuple(part for part in error["loc"] if type(part) is not int)
                name = kind.removesuffix(".added").removesuffix(".done")
                found.add((name if name == "response.output_item" else kind, where, error["type"]))
    return found


def responses_sdk(raw: bytes) -> Any:
    """The response openai-python's ``ResponseStreamState`` folds from a stream's events.

    The events are built as the SDK's own stream builds them (``construct_type``).
    """
    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    numbers = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic on items the SDK does not type exactly
        for name, data in sse_payloads(raw):
            event: Any = construct_type(type_=ResponseStreamEvent, value=json.loads(data))
            assert event.type == name
            numbers.append(event.sequence_number)
            state.handle_event(event)
    assert numbers == list(range(len(numbers)))
    # response.completed gives the final response; incomplete and failed only the snapshot.
    completed = state._completed_response
    return completed if completed is not None else state._ResponseStreamState__current_snapshot


_CONVERSE_STREAM = (
    botocore.session.get_session()
    .get_service_model("bedrock-runtime")
    .operation_model("ConverseStream")
    .output_shape.members["stream"]
)


class _Body:
    """A botocore raw stream over bytes, read in small pieces."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self) -> Any:
        for at in range(0, len(self.data), 7):
            yield self.data[at : at + 7]

    def close(self) -> None:
        """Nothing to close."""


def botocore_events(raw: bytes) -> list[dict[str, Any]]:
    """A ConverseStream's events as boto3 gives them: frames (CRCs checked) parsed by the model."""
    stream = EventStream(_Body(raw), _CONVERSE_STREAM, EventStreamJSONParser(), "ConverseStream")
    return list(stream)
