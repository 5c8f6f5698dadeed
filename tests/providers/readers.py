"""Recorded streams of the six families, and the official SDKs' own stream readers.

Shared by the stream encoder and translation tests: which streams there are,
decoding and re-encoding them, and what openai-python (Chat Completions and
Responses), the anthropic SDK, google-genai and botocore make of a stream's bytes.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from corpus import STREAMS, corpus, run_stream
from google.genai import types as genai
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from chatcodec import Response, StreamError
from chatcodec._events import StreamEvent
from chatcodec._framing import Deframer
from chatcodec.providers import get

FAMILIES = ("openai", "anthropic", "gemini", "ollama", "openai-responses", "bedrock")
PREFIXES = {
    "openai": ("openai__", "groq__", "mistral__", "other__"),
    "anthropic": ("anthropic__",),
    "gemini": ("gemini__",),
    "ollama": ("ollama__",),
    "openai-responses": ("openai-responses__",),
    "bedrock": ("bedrock__",),
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
