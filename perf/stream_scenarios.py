"""What the stream benchmarks compute, and the checks that every peer agrees.

Decoding a streamed response and accumulating its tool calls, chunk by chunk.
Every implementation is fed the same bytes, in the same network-sized pieces
(:func:`network_pieces`), and must end with the same tool calls (names and
arguments) and finish reason, which :func:`expected` reads from the payloads
with plain dict code:

- **chatcodec**: ``providers.get(family).stream()``, ``feed(piece)`` for every
  piece, then ``finish()``.
- **msgspec-floor**: a minimal split (bytes cut on the frame separator,
  ``data: `` stripped) and a ``msgspec.json.Decoder`` of typed Structs for the
  family's chunks, per payload, and nothing else: the floor under any decoder.
  It cannot compute the calls; its check is that it decodes every chunk.
- **openai-sdk**: the same split, ``ChatCompletionChunk.model_validate_json``
  and ``ChatCompletionStreamState.handle_chunk`` per chunk, then
  ``get_final_completion()``.
- **langchain-core**: the same split, ``orjson.loads``, one ``AIMessageChunk``
  per chunk (content, ``tool_call_chunks``, finish reason in
  ``response_metadata``, usage in ``usage_metadata``) as langchain-openai builds
  them, summed with ``+``.
- **anthropic-sdk**: the same split, ``orjson.loads``, and
  ``anthropic.lib.streaming._messages.accumulate_event`` per event, as the
  SDK's ``MessageStream`` does.

The streams: ``openai-200``, made by ``data/streams/make_openai_200.py`` (200
chunks, 2 parallel tool calls in 3-10 character fragments, a usage chunk), and
one real recorded stream with tool calls per family (``data/streams/SOURCES.md``).

The preview anchor: one call's argument text in its fragments through
``ToolCallAccumulator(preview=True)``, ``feed`` and ``preview`` after every
fragment, against ``jiter.from_json(prefix, partial_mode=True)`` on every
prefix (what the anthropic SDK does on every ``input_json_delta``). Two
calls: call 0 of ``openai-200`` (``preview-every-fragment``, about 470
characters) and about 4 KB of generated arguments in 3-10 character pieces
(``preview-4kb``), where parsing every prefix costs more per fragment as the
text grows.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import jiter
import msgspec
import orjson

from chatcodec import Response, ToolCallAccumulator, ToolCallDelta, providers

if TYPE_CHECKING:
    from langchain_core.messages import AIMessageChunk

# The peers' packages are imported where they are used: pyperf starts a
# worker process per benchmark and run, and importing them all (the anthropic
# SDK alone takes 2 s) would cost every worker several seconds.

DATA = Path(__file__).parent / "data" / "streams"


class CheckFailed(Exception):
    """A peer does not compute what the stream holds."""


Call = tuple[str, Any]
Answer = tuple[list[Call], str | None]  # the calls (name, arguments), the raw finish reason


class Stream(NamedTuple):
    """One stream as the benchmarks feed it."""

    family: str
    separator: bytes  # between two frames: b"\n\n" (or CRLF twice) for SSE, b"\n" for NDJSON
    data: bytes
    pieces: list[bytes]
    payloads: list[bytes]  # the JSON payloads, for the dict code of :func:`expected`


def _corpus_bytes(name: str, family: str) -> bytes:
    recorded = orjson.loads((DATA / f"{name}.json").read_bytes())
    if family == "ollama":
        # A docs excerpt shows its NDJSON objects pretty-printed: the wire sends
        # each one compact on its own line, as Ollama's Go encoder writes it.
        return b"".join(orjson.dumps(event) + b"\n" for event in recorded["events"])
    raw: str = recorded["raw"]
    return raw.encode()


# -- splitting -------------------------------------------------------------------

PATTERN = (1, 3, 2, 4)  # frames per network piece, in turn
LEAD = 40  # each piece ends this many bytes into the next frame


def network_pieces(data: bytes, separator: bytes) -> list[bytes]:
    """``data`` cut as network reads would: after 1, 3, 2, 4, 1... frames, mid-frame.

    Deterministic, so every run and every implementation gets the same pieces.
    """
    ends = []
    at = data.find(separator)
    while at != -1:
        ends.append(at + len(separator))
        at = data.find(separator, at + len(separator))
    cuts: list[int] = []
    frames = 0
    for turn in range(len(ends)):
        frames += PATTERN[turn % len(PATTERN)]
        if frames > len(ends):
            break
        cut = min(ends[frames - 1] + LEAD, len(data))
        if not cuts or cut > cuts[-1]:
            cuts.append(cut)
    bounds = zip([0, *cuts], [*cuts, len(data)], strict=True)
    return [data[start:end] for start, end in bounds if end > start]


def split_payloads(pieces: list[bytes], separator: bytes) -> Iterator[bytes]:
    """The minimal split the peers use: cut on the separator, strip ``data: ``.

    No comments, no CR line ends, no multi-line data: only what the streams
    measured here need. Stops at ``[DONE]``.
    """
    sse = separator != b"\n"
    buffer = b""
    for piece in pieces:
        buffer += piece
        *frames, buffer = buffer.split(separator)
        for frame in frames:
            payload = frame.partition(b"data: ")[2] if sse else frame
            if payload == b"[DONE]":
                return
            if payload.strip():
                yield payload
    payload = buffer.partition(b"data: ")[2] if sse else buffer  # no final separator
    if payload.strip() and payload != b"[DONE]":
        yield payload


def make_stream(family: str, data: bytes) -> Stream:
    separator = b"\n\n"
    if family == "ollama":
        separator = b"\n"
    elif b"\r\n\r\n" in data:  # Gemini often ends its lines with CRLF
        separator = b"\r\n\r\n"
    pieces = network_pieces(data, separator)
    return Stream(family, separator, data, pieces, list(split_payloads(pieces, separator)))


CORPUS = {  # copied unchanged from the recorded corpus: data/streams/SOURCES.md
    "openai": (
        "openai__openai-python__chat_completions_streaming__test_parse_multiple_pydantic_tools"
    ),
    "anthropic": (
        "anthropic__anthropic-sdk-python__tools__test_runners__TestSyncRunTools__"
        "555fb399-a54c-455b-9ac5-2c9673f18e12__00"
    ),
    "gemini": (
        "gemini__pydantic-ai__models__test_google__"
        "test_google_streaming_tool_call_thought_signature__00"
    ),
    "ollama": "ollama__ollama-docs__docs__api.md__Chat_request_Streaming_with_tools",
    "openai-responses": (
        "openai-responses__pydantic-ai__models__test_openai_responses__"
        "test_openai_responses_phase_streamed_on_part_start__00"
    ),
}

STREAMS: dict[str, Stream] = {
    "openai-200": make_stream("openai", (DATA / "openai_200.sse").read_bytes()),
    **{
        f"{family}-corpus": make_stream(family, _corpus_bytes(name, family))
        for family, name in CORPUS.items()
    },
}


# -- the answer, from the payloads with plain dict code ------------------------------


def expected(stream: Stream) -> Answer:
    """The tool calls and the finish reason the stream holds."""
    events = [orjson.loads(payload) for payload in stream.payloads]
    calls: list[tuple[str, str]] = []
    finish: str | None = None
    if stream.family == "openai":
        by_index: dict[int, list[str]] = {}
        for event in events:
            for choice in event["choices"]:
                for delta in choice["delta"].get("tool_calls") or ():
                    function = delta.get("function") or {}
                    call = by_index.setdefault(delta["index"], ["", ""])
                    call[0] += function.get("name") or ""
                    call[1] += function.get("arguments") or ""
                finish = choice.get("finish_reason") or finish
        calls = [(name, arguments) for name, arguments in by_index.values()]
    elif stream.family == "anthropic":
        blocks: dict[int, list[str]] = {}
        for event in events:
            if event["type"] == "content_block_start":
                block = event["content_block"]
                if block["type"] == "tool_use":
                    blocks[event["index"]] = [block["name"], ""]
            elif event["type"] == "content_block_delta" and event["index"] in blocks:
                blocks[event["index"]][1] += event["delta"].get("partial_json", "")
            elif event["type"] == "message_delta":
                finish = event["delta"].get("stop_reason") or finish
        calls = [(name, arguments or "{}") for name, arguments in blocks.values()]
    elif stream.family == "gemini":
        for event in events:
            for candidate in event.get("candidates", ()):
                for part in candidate.get("content", {}).get("parts", ()):
                    if "functionCall" in part:
                        call = part["functionCall"]
                        calls.append((call["name"], orjson.dumps(call.get("args", {})).decode()))
                finish = candidate.get("finishReason") or finish
    elif stream.family == "openai-responses":
        for event in events:
            if event["type"] == "response.output_item.done":
                item = event["item"]
                if item["type"] == "function_call":
                    calls.append((item["name"], item["arguments"]))
            elif event["type"] == "response.completed":
                finish = event["response"]["status"]
    else:
        for event in events:
            for call in event["message"].get("tool_calls") or ():
                function = call["function"]
                calls.append((function["name"], orjson.dumps(function["arguments"]).decode()))
            finish = event.get("done_reason") or finish
    return [(name, orjson.loads(arguments)) for name, arguments in calls], finish


# -- the floor: typed Structs per family, nothing else --------------------------------


class OAFunction(msgspec.Struct, gc=False):
    name: str | None = None
    arguments: str | None = None


class OAToolCall(msgspec.Struct, gc=False):
    index: int
    id: str | None = None
    type: str | None = None
    function: OAFunction | None = None


class OADelta(msgspec.Struct, gc=False):
    role: str | None = None
    content: str | None = None
    refusal: str | None = None
    tool_calls: list[OAToolCall] | None = None


class OAChoice(msgspec.Struct, gc=False):
    index: int
    delta: OADelta
    logprobs: Any = None
    finish_reason: str | None = None


class OAUsage(msgspec.Struct, gc=False):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: dict[str, int] | None = None
    completion_tokens_details: dict[str, int] | None = None


class OAChunk(msgspec.Struct, gc=False):
    id: str
    object: str
    created: int
    model: str
    choices: list[OAChoice]
    service_tier: str | None = None
    system_fingerprint: str | None = None
    usage: OAUsage | None = None
    obfuscation: str | None = None


class ANUsage(msgspec.Struct, gc=False):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation: dict[str, int] | None = None
    service_tier: str | None = None
    inference_geo: str | None = None


class ANMessage(msgspec.Struct, gc=False):
    id: str
    type: str
    role: str
    model: str
    content: list[Any]
    usage: ANUsage
    stop_reason: str | None = None
    stop_sequence: str | None = None


class ANText(msgspec.Struct, tag_field="type", tag="text", gc=False):
    text: str


class ANToolUse(msgspec.Struct, tag_field="type", tag="tool_use", gc=False):
    id: str
    name: str
    input: dict[str, Any]
    caller: dict[str, str] | None = None


class ANTextDelta(msgspec.Struct, tag_field="type", tag="text_delta", gc=False):
    text: str


class ANJSONDelta(msgspec.Struct, tag_field="type", tag="input_json_delta", gc=False):
    partial_json: str


class ANMessageDeltaBody(msgspec.Struct, gc=False):
    stop_reason: str | None = None
    stop_sequence: str | None = None


class ANMessageStart(msgspec.Struct, tag_field="type", tag="message_start", gc=False):
    message: ANMessage


class ANBlockStart(msgspec.Struct, tag_field="type", tag="content_block_start", gc=False):
    index: int
    content_block: ANText | ANToolUse


class ANBlockDelta(msgspec.Struct, tag_field="type", tag="content_block_delta", gc=False):
    index: int
    delta: ANTextDelta | ANJSONDelta


class ANBlockStop(msgspec.Struct, tag_field="type", tag="content_block_stop", gc=False):
    index: int


class ANMessageDelta(msgspec.Struct, tag_field="type", tag="message_delta", gc=False):
    delta: ANMessageDeltaBody
    usage: ANUsage


class ANMessageStop(msgspec.Struct, tag_field="type", tag="message_stop", gc=False):
    pass


class ANPing(msgspec.Struct, tag_field="type", tag="ping", gc=False):
    pass


ANEvent = (
    ANMessageStart
    | ANBlockStart
    | ANBlockDelta
    | ANBlockStop
    | ANMessageDelta
    | ANMessageStop
    | ANPing
)


class GEFunctionCall(msgspec.Struct, gc=False):
    name: str
    args: dict[str, Any] = {}
    id: str | None = None


class GEPart(msgspec.Struct, rename="camel", gc=False):
    text: str | None = None
    thought: bool | None = None
    thought_signature: str | None = None
    function_call: GEFunctionCall | None = None


class GEContent(msgspec.Struct, gc=False):
    parts: list[GEPart] = []
    role: str | None = None


class GECandidate(msgspec.Struct, rename="camel", gc=False):
    content: GEContent | None = None
    finish_reason: str | None = None
    index: int | None = None


class GEModalityCount(msgspec.Struct, rename="camel", gc=False):
    modality: str
    token_count: int


class GEUsage(msgspec.Struct, rename="camel", gc=False):
    prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    total_token_count: int | None = None
    thoughts_token_count: int | None = None
    prompt_tokens_details: list[GEModalityCount] | None = None


class GEResponse(msgspec.Struct, rename="camel", gc=False):
    candidates: list[GECandidate] = []
    usage_metadata: GEUsage | None = None
    model_version: str | None = None
    response_id: str | None = None


class OLFunction(msgspec.Struct, gc=False):
    name: str
    arguments: dict[str, Any]


class OLToolCall(msgspec.Struct, gc=False):
    function: OLFunction


class OLMessage(msgspec.Struct, gc=False):
    role: str
    content: str = ""
    thinking: str | None = None
    tool_calls: list[OLToolCall] | None = None


class OLChunk(msgspec.Struct, gc=False):
    model: str
    created_at: str
    message: OLMessage
    done: bool
    done_reason: str | None = None
    total_duration: int | None = None
    load_duration: int | None = None
    prompt_eval_count: int | None = None
    prompt_eval_duration: int | None = None
    eval_count: int | None = None
    eval_duration: int | None = None


class RSEvent(msgspec.Struct, gc=False):
    type: str
    sequence_number: int
    output_index: int | None = None
    content_index: int | None = None
    summary_index: int | None = None
    item_id: str | None = None
    delta: str | None = None
    item: dict[str, Any] | None = None
    part: dict[str, Any] | None = None
    response: dict[str, Any] | None = None


FLOOR_TYPES: dict[str, Any] = {
    "openai": OAChunk,
    "anthropic": ANEvent,
    "gemini": GEResponse,
    "ollama": OLChunk,
    "openai-responses": RSEvent,
}


# -- the implementations: pieces in, the final result out ------------------------------

Feed = Callable[[list[bytes]], Any]


def chatcodec_feeder(family: str) -> Feed:
    make = providers.get(family).stream

    def feed(pieces: list[bytes]) -> Response:
        decoder = make()
        for piece in pieces:
            decoder.feed(piece)
        return decoder.finish()

    return feed


def floor_feeder(family: str, separator: bytes) -> Feed:
    decode = msgspec.json.Decoder(FLOOR_TYPES[family]).decode

    def feed(pieces: list[bytes]) -> int:
        count = 0
        for payload in split_payloads(pieces, separator):
            decode(payload)
            count += 1
        return count

    return feed


def openai_sdk(pieces: list[bytes]) -> Any:
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    parse = ChatCompletionChunk.model_validate_json
    for payload in split_payloads(pieces, b"\n\n"):
        state.handle_chunk(parse(payload))  # returns the events, as a list
    return state.get_final_completion()


def langchain_core(pieces: list[bytes]) -> AIMessageChunk:
    from langchain_core.messages import AIMessageChunk
    from langchain_core.messages.ai import UsageMetadata
    from langchain_core.messages.tool import tool_call_chunk

    message: AIMessageChunk | None = None
    for payload in split_payloads(pieces, b"\n\n"):
        chunk = orjson.loads(payload)
        choices = chunk.get("choices") or []
        usage = chunk.get("usage")
        if not choices:
            metadata = UsageMetadata(
                input_tokens=usage["prompt_tokens"],
                output_tokens=usage["completion_tokens"],
                total_tokens=usage["total_tokens"],
            )
            part = AIMessageChunk(content="", usage_metadata=metadata)
        else:
            choice = choices[0]
            delta = choice["delta"]
            chunks = [
                tool_call_chunk(
                    name=raw["function"].get("name"),
                    args=raw["function"].get("arguments"),
                    id=raw.get("id"),
                    index=raw["index"],
                )
                for raw in delta.get("tool_calls") or ()
            ]
            info = {}
            if finish := choice.get("finish_reason"):
                info = {"finish_reason": finish, "model_name": chunk.get("model")}
            part = AIMessageChunk(
                content=delta.get("content") or "",
                tool_call_chunks=chunks,
                response_metadata=info,
            )
        message = part if message is None else message + part
    assert message is not None
    return message


def anthropic_sdk(pieces: list[bytes]) -> Any:
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for payload in split_payloads(pieces, b"\n\n"):
        event = orjson.loads(payload)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return snapshot


def _answer_chatcodec(response: Response) -> Answer:
    if response.invalid_tool_calls:
        raise CheckFailed(f"chatcodec found invalid calls: {response.invalid_tool_calls}")
    calls = [(call.name, call.arguments_dict()) for call in response.tool_calls]
    raw = response.choices[0].raw_finish_reason
    return calls, raw if raw is None else str(raw)


def _answer_openai(completion: Any) -> Answer:
    choice = completion.choices[0]
    calls = [
        (call.function.name, orjson.loads(call.function.arguments))
        for call in choice.message.tool_calls or ()
    ]
    return calls, choice.finish_reason


def _answer_langchain(message: AIMessageChunk) -> Answer:
    calls = [(call["name"], call["args"]) for call in message.tool_calls]
    return calls, message.response_metadata.get("finish_reason")


def _answer_anthropic(message: Any) -> Answer:
    calls = [(block.name, block.input) for block in message.content if block.type == "tool_use"]
    return calls, message.stop_reason


def has_chatcodec(family: str) -> bool:
    """Whether chatcodec has a stream decoder for the family (yet)."""
    return callable(getattr(providers.get(family), "stream", None))


def implementations(case: str) -> dict[str, tuple[Feed, Callable[[Any], Answer] | None]]:
    """The implementations timed on one stream, each with how to read its answer.

    The floor has no reader: it computes no calls, only decodes every chunk.
    """
    stream = STREAMS[case]
    family = stream.family
    out: dict[str, tuple[Feed, Callable[[Any], Answer] | None]] = {}
    if has_chatcodec(family):
        out["chatcodec"] = (chatcodec_feeder(family), _answer_chatcodec)
    out["msgspec-floor"] = (floor_feeder(family, stream.separator), None)
    if family == "openai":
        out["openai-sdk"] = (openai_sdk, _answer_openai)
        out["langchain-core"] = (langchain_core, _answer_langchain)
    if family == "anthropic":
        out["anthropic-sdk"] = (anthropic_sdk, _answer_anthropic)
    return out


def check_stream(case: str) -> None:
    """Every implementation ends with the calls and finish reason the stream holds."""
    stream = STREAMS[case]
    if b"".join(stream.pieces) != stream.data or len(stream.pieces) < min(2, len(stream.payloads)):
        raise CheckFailed(f"{case}: the network pieces do not make the stream")
    want = expected(stream)
    if not want[0] or want[1] is None:
        raise CheckFailed(f"{case}: the stream has no tool call or no finish reason")
    for name, (feed, read) in implementations(case).items():
        result = feed(stream.pieces)
        if read is None:
            if result != len(stream.payloads):
                raise CheckFailed(f"{case}/{name} decoded {result} of {len(stream.payloads)}")
        elif (got := read(result)) != want:
            raise CheckFailed(f"{case}/{name} computes {got!r}, the stream holds {want!r}")


# -- the preview anchor ------------------------------------------------------------------


def _first_call_fragments(stream: Stream) -> tuple[str, str, list[str]]:
    """Call 0's id, name and argument fragments, from the OpenAI chunks."""
    id_ = name = ""
    fragments: list[str] = []
    for payload in stream.payloads:
        for choice in orjson.loads(payload)["choices"]:
            for delta in choice["delta"].get("tool_calls") or ():
                if delta["index"] != 0:
                    continue
                function = delta.get("function") or {}
                id_ = delta.get("id") or id_
                name = function.get("name") or name
                if function.get("arguments"):
                    fragments.append(function["arguments"])
    return id_, name, fragments


_ID, _NAME, PREVIEW_FRAGMENTS = _first_call_fragments(STREAMS["openai-200"])
PREVIEW_DELTAS = [
    ToolCallDelta(0, _ID, _NAME, PREVIEW_FRAGMENTS[0]),
    *(ToolCallDelta(0, arguments_delta=text) for text in PREVIEW_FRAGMENTS[1:]),
]


def _long_arguments(size: int) -> str:
    """Arguments of about ``size`` characters, the same on every run: a file to write
    (long strings with escapes and non-ASCII text) and a list of records (numbers,
    booleans, null, nested objects and arrays)."""
    rng = random.Random(size)
    words = ["alpha", "beta", '"quoted"', "line\nbreak", "tab\t", "café", "😀", "naïve", "42"]

    def text(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    items: list[Any] = []
    value = {"path": "src/main.py", "content": text(40), "items": items, "dry_run": False}
    while len(orjson.dumps(value)) < size:
        items.append(
            {
                "id": len(items),
                "title": text(8),
                "body": text(25),
                "done": rng.random() < 0.5,
                "score": round(rng.random() * 100, 3),
                "sub": {"list": [1, -2.5e3, {"k": text(3)}], "note": None},
            }
        )
    return json.dumps(value, ensure_ascii=False)


def _fragments(text: str) -> list[str]:
    """``text`` in 3-10 character pieces, the same on every run."""
    rng = random.Random(len(text))
    out, at = [], 0
    while at < len(text):
        step = rng.randint(3, 10)
        out.append(text[at : at + step])
        at += step
    return out


# A number or literal at the very end of the text, which may still go on.
_PENDING = re.compile(rb"(?:-?[0-9][-+.0-9eE]*|-|[a-z]+)$")

LONG_FRAGMENTS = _fragments(_long_arguments(4096))
LONG_DELTAS = [
    ToolCallDelta(0, "call_long", "write_file", LONG_FRAGMENTS[0]),
    *(ToolCallDelta(0, arguments_delta=text) for text in LONG_FRAGMENTS[1:]),
]


def preview_chatcodec(deltas: list[ToolCallDelta]) -> Any:
    """Feed every fragment and preview the arguments after each one."""
    acc = ToolCallAccumulator(preview=True)
    value = None
    for delta in deltas:
        acc.feed(delta)
        value = acc.preview(0)
    return value


def preview_jiter(fragments: list[str]) -> Any:
    """Parse every prefix with jiter's partial mode (as the anthropic SDK does)."""
    buffer = b""
    value = None
    for text in fragments:
        buffer += text.encode()
        value = jiter.from_json(buffer, partial_mode=True)
    return value


def check_preview(fragments: list[str], deltas: list[ToolCallDelta]) -> None:
    """Both previews end with the whole arguments; on the way, chatcodec's match jiter's.

    jiter's ``partial_mode=True`` leaves a string still arriving out, where a
    chatcodec preview shows it so far: its ``"trailing-strings"`` mode shows
    the same, so every preview on the way is compared with that mode. Where
    the text so far ends in a number or literal that may go on (``12``,
    ``tr``), jiter shows it and chatcodec waits for the next character: there
    chatcodec's preview must be jiter's of the text without that token.
    """
    want = orjson.loads("".join(fragments))
    if len(fragments) < 50:
        raise CheckFailed("the preview call has too few fragments")
    acc = ToolCallAccumulator(preview=True)
    prefix = b""
    for k, delta in enumerate(deltas):
        acc.feed(delta)
        prefix += (delta.arguments_delta or "").encode()
        got = acc.preview(0)
        mode: Literal["trailing-strings"] = "trailing-strings"
        shown = jiter.from_json(prefix, partial_mode=mode)
        if got != shown and got != jiter.from_json(_PENDING.sub(b"", prefix), partial_mode=mode):
            raise CheckFailed(f"after fragment {k}, the chatcodec preview is not jiter's")
    for name, got in (
        ("chatcodec", preview_chatcodec(deltas)),
        ("jiter", preview_jiter(fragments)),
    ):
        if got != want:
            raise CheckFailed(f"the {name} preview ends with {got!r}, not the arguments")


PREVIEWS: dict[str, tuple[list[str], list[ToolCallDelta]]] = {
    "stream/preview-every-fragment": (PREVIEW_FRAGMENTS, PREVIEW_DELTAS),
    "stream/preview-4kb": (LONG_FRAGMENTS, LONG_DELTAS),
}


CHECKS: dict[str, Callable[[], None]] = {
    **{f"stream/{case}": partial(check_stream, case) for case in STREAMS},
    **{case: partial(check_preview, *inputs) for case, inputs in PREVIEWS.items()},
}
