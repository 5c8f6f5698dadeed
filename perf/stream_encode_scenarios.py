"""What the stream-encoding benchmark computes, and its check.

Writing the 200-chunk OpenAI stream (``openai-200`` of ``stream_scenarios``)
again: its events, decoded once beforehand, go through
``openai.stream_encoder`` (one ``encode`` per event, then ``finish``), with
the decoded response as the head.

- **chatcodec**: the stream encoder, events to SSE bytes.
- **msgspec-floor**: the recorded chunks, parsed once beforehand, each
  written with one ``msgspec.json.Encoder`` call and framed as ``data:``
  lines: the floor under any encoder.

The check, before anything is timed: the encoder's bytes decode to the
response the recorded stream decodes to, and the floor's bytes are the
recorded chunks. Decoding the same stream (``stream/openai-200/...`` in
``bench_streams.py``) is the other floor it is read against.

Translating: the recorded Anthropic stream (``anthropic-corpus``) fed in its
network pieces to ``translate_stream("anthropic", "openai")``, against
decoding it alone (``translate/anthropic-corpus/decode-alone``, the same as
``stream/anthropic-corpus/chatcodec``; the goal is at most twice that).
Its check: the OpenAI stream it writes decodes to the calls and the finish
reason the Anthropic stream holds.
"""

from __future__ import annotations

from typing import Any

import msgspec

from chatcodec import Response, translate_stream
from chatcodec._events import StreamEvent
from chatcodec.providers import anthropic, openai
from stream_scenarios import STREAMS, CheckFailed

CASE = "openai-200"
TRANSLATED = "anthropic-corpus"
_encode = msgspec.json.Encoder().encode


def _decoded() -> tuple[list[StreamEvent], Response]:
    decoder = openai.stream()
    events = decoder.feed(STREAMS[CASE].data)
    events += decoder.flush()
    return events, decoder.finish()


EVENTS, RESPONSE = _decoded()
CHUNKS: list[Any] = [msgspec.json.decode(payload) for payload in STREAMS[CASE].payloads]


def encode_chatcodec(events: list[StreamEvent]) -> bytes:
    encoder = openai.stream_encoder(RESPONSE)
    encode = encoder.encode
    return b"".join([encode(event) for event in events]) + encoder.finish()


def encode_floor(chunks: list[Any]) -> bytes:
    return (
        b"".join([b"data: " + _encode(chunk) + b"\n\n" for chunk in chunks]) + b"data: [DONE]\n\n"
    )


def check_encode() -> None:
    decoder = openai.stream()
    decoder.feed(encode_chatcodec(EVENTS))
    if decoder.finish() != RESPONSE:
        raise CheckFailed(f"encode/{CASE}/chatcodec: the stream does not decode to the response")
    if encode_floor(CHUNKS) != STREAMS[CASE].data:
        raise CheckFailed(f"encode/{CASE}/msgspec-floor: not the recorded chunks")


def translate_chatcodec(pieces: list[bytes]) -> bytes:
    translator = translate_stream("anthropic", "openai")
    feed = translator.feed
    out = b"".join([feed(piece) for piece in pieces])
    return out + translator.finish()[0]


def decode_alone(pieces: list[bytes]) -> Response:
    """The same pieces through the Anthropic decoder alone: what translating is read against."""
    decoder = anthropic.stream()
    for piece in pieces:
        decoder.feed(piece)
    return decoder.finish()


def check_translate() -> None:
    source = anthropic.stream()
    source.feed(STREAMS[TRANSLATED].data)
    want = source.finish()
    target = openai.stream()
    target.feed(translate_chatcodec(STREAMS[TRANSLATED].pieces))
    got = target.finish()
    calls = [(c.name, bytes(c.arguments)) for c in got.tool_calls]
    if calls != [(c.name, bytes(c.arguments)) for c in want.tool_calls] or (
        got.finish_reason != want.finish_reason
    ):
        raise CheckFailed(f"translate/{TRANSLATED}/chatcodec: not the calls the stream holds")
