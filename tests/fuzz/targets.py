"""The fuzz targets: one function per public entry point that takes outside bytes.

Each target takes one input (bytes) and calls an entry point with it. The
invariant is the library's contract: whatever the bytes, an answer or one of
chatcodec's own errors. Any other exception is a crash, and so is a broken
promise that is checked here too:

- what a provider decoder reads, its encoder writes and the decoder reads again;
- what the canonical decoder reads encodes and decodes to an equal value;
- what :func:`chatcodec.convert` writes, the target's own decoder reads.

Targets that need more than one body (a conversion's source and target, the
splits of a stream, a sequence of tool-call deltas) read a short header from the
front of the input (:class:`Header`); :func:`seeds` prefixes real payloads with
one so that fuzzing starts from real traffic. Nothing here needs atheris: the
tests replay the seeds and the crashers through the same functions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import surfaces
from harness import API, CORPUS, DATA, Crash, Header, bodies, corpus, files, ours, stream_raw

import chatcodec as cc
from chatcodec import providers
from chatcodec._convert import general_request
from chatcodec.bulk._detect import mismatch
from chatcodec.bulk._families import normalize
from chatcodec.providers._direct import direct_request

__all__ = ["STREAMS", "TARGETS", "WORDS", "Crash", "Header", "seeds"]

# Families with one framing of their own: their decoders take no other.
ONE_FRAMING = frozenset({"bedrock"})
FRAMINGS: tuple[Any, ...] = (None, None, "sse", "ndjson", "json-array")
TYPES: tuple[Any, ...] = (cc.Message, list[cc.Message], cc.Conversation)


# Tokens for the fuzzer's dictionary: JSON's own, and the keys, roles and
# types of the wire formats, so that mutations build the shapes decoders read.
WORDS = [
    *("{", "}", "[", "]", ":", ",", '"', "true", "false", "null", "-0", "1e999", "\\u0000"),
    *("\\ud800", "data: ", "event: ", "\n\n", "\r\n", "[DONE]"),
    *('"role"', '"content"', '"type"', '"text"', '"tool_calls"', '"id"', '"function"'),
    *('"name"', '"arguments"', '"tools"', '"parameters"', '"tool_choice"', '"choices"'),
    *('"message"', '"delta"', '"index"', '"finish_reason"', '"usage"', '"model"', '"messages"'),
    *('"system"', '"input"', '"tool_use_id"', '"tool_result"', '"tool_use"', '"thinking"'),
    *('"signature"', '"stop_reason"', '"max_tokens"', '"content_block"', '"message_start"'),
    *('"content_block_delta"', '"input_json_delta"', '"partial_json"', '"contents"', '"parts"'),
    *('"functionCall"', '"args"', '"functionResponse"', '"response"', '"candidates"'),
    *('"finishReason"', '"usageMetadata"', '"systemInstruction"', '"inlineData"', '"fileData"'),
    *('"fileUri"', '"mimeType"', '"data"', '"thought"', '"thoughtSignature"', '"options"'),
    *('"temperature"', '"images"', '"done"', '"done_reason"', '"think"', '"format"'),
    *('"image_url"', '"url"', '"refusal"', '"response_format"', '"json_schema"', '"strict"'),
    *('"required"', '"properties"', '"extras"', '"metadata"', '"v"', '"records"'),
    *('"user"', '"assistant"', '"tool"', '"developer"', '"model"', '"image"', '"file"'),
]


# -- canonical ------------------------------------------------------------------


def canonical_json(data: bytes) -> None:
    """``decode`` as every top-level type; what decodes encodes and decodes again."""
    for type_ in TYPES:
        value = ours(cc.decode, data, type=type_)
        if value is not None:
            again = cc.decode(cc.encode(value), type=type_)
            if again != value:
                raise Crash(f"decode(encode(x)) != x for {type_}")


def canonical_msgpack(data: bytes) -> None:
    """``decode(format="msgpack")`` as every top-level type."""
    for type_ in TYPES:
        value = ours(cc.decode, data, type=type_, format="msgpack")
        if value is not None:
            ours(cc.encode, value, format="msgpack")


def lenient(data: bytes) -> None:
    """``decode_lenient``, JSON and msgpack, as every type it takes."""
    for type_ in TYPES:
        for format in ("json", "msgpack"):
            ours(cc.decode_lenient, data, type=type_, format=format)


def jsonl(data: bytes) -> None:
    """``iter_jsonl``, strict and lenient, over the input's lines."""
    lines = data.split(b"\n")
    ours(lambda: list(cc.iter_jsonl(lines)))
    ours(lambda: list(cc.iter_jsonl(lines, type=cc.Conversation)))
    # Lenient reading never stops at a bad line, so nothing may escape at all.
    list(cc.iter_jsonl(lines, lenient=True))


def untrusted(data: bytes) -> None:
    """``validate_untrusted``, with and without system messages."""
    ours(lambda: cc.validate_untrusted(data))
    ours(lambda: cc.validate_untrusted(data, allow_system=True))


# -- providers ------------------------------------------------------------------


def _family(name: str) -> Callable[[bytes], None]:
    codec = providers.get(name)

    def target(data: bytes) -> None:
        request = ours(lambda: codec.decode_request(data))
        if request is not None:
            ours(lambda: codec.check_request(request))
            body = ours(lambda: codec.encode_request(request))
            if body is not None:
                codec.decode_request(body)  # what we wrote, we read
        response = ours(lambda: codec.decode_response(data))
        if response is not None:
            body = ours(lambda: codec.encode_response(response))
            if body is not None:
                codec.decode_response(body)

    target.__name__ = target.__qualname__ = f"{name}_decode"
    target.__doc__ = f"{name}: ``decode_request`` and ``decode_response``, round trips."
    return target


def convert(data: bytes) -> None:
    """``convert`` between any two families; the target reads what was written."""
    head = Header(data)
    source, target = head.pick(providers.NAMES), head.pick(providers.NAMES)
    kind = head.pick(("request", "response"))
    body = head.rest()
    result = ours(
        lambda: cc.convert(body, source=source, target=target, kind=kind, model="m", max_tokens=8)
    )
    if result is not None:
        decode = getattr(providers.get(target), f"decode_{kind}")
        try:
            decode(result[0])
        except cc.ChatCodecError as exc:
            raise Crash(f"{source} -> {target} {kind}: the target refuses the output") from exc


MODELS: tuple[Any, ...] = (None, "m", "claude-sonnet-4-5", "gemini-2.5-flash", "gpt-4o", "o3")
LIMITS: tuple[Any, ...] = (None, 1024, 8)


def direct(data: bytes) -> None:
    """The direct path gives the general path's bytes and losses, or declines.

    The general path may not refuse what it takes, nor its preflight find a
    problem in it.
    """
    head = Header(data)
    source, target = head.pick(providers.NAMES), head.pick(providers.NAMES)
    model, max_tokens = head.pick(MODELS), head.pick(LIMITS)
    body = head.rest()
    taken = direct_request(source, target, body, model, max_tokens)
    if taken is None:
        return
    pair = f"{source} -> {target} ({model}, {max_tokens})"
    losses: list[cc.Loss] = []
    reader, writer = providers.get(source), providers.get(target)
    try:
        out, problems = general_request(reader, writer, body, model, max_tokens, True, losses)
    except cc.ChatCodecError as exc:
        raise Crash(f"{pair}: taken straight across, refused the general way") from exc
    if taken[0] != out:
        raise Crash(f"{pair}: the paths write other bytes")
    if taken[1] != losses:
        raise Crash(f"{pair}: the paths report other losses")
    if problems:
        raise Crash(f"{pair}: taken straight across with problems: {problems[0]}")


BULK_FAMILIES = (*providers.NAMES, "chatcodec", "sharegpt")
BULK_KINDS: tuple[Any, ...] = ("request", "response", "transcript", "batch", "sharegpt", None)


def bulk(data: bytes) -> None:
    """``convert_lines`` over the input's lines: lenient, it accounts for every line.

    A plan the options refuse (ShareGPT batches, say) raises before any line
    is read, and so may a first record whose kind cannot be told; once the
    kind is known, no line may make it raise.
    """
    head = Header(data)
    source, target = head.pick(BULK_FAMILIES), head.pick(BULK_FAMILIES)
    kind = head.pick(BULK_KINDS)
    lines = head.rest().split(b"\n")

    def run(these: list[bytes]) -> cc.BulkResult:
        return cc.convert_lines(
            these, source=source, target=target, kind=kind, model="m", max_tokens=8
        )

    if ours(run, []) is None:
        return  # options no run takes
    try:
        result = run(lines)
    except cc.ChatCodecError:
        first = next((line for line in lines if line.strip()), None)
        if kind is not None and (first is None or mismatch(first, kind, normalize(source)) is None):
            raise  # only a first record plainly of another kind or family may stop a run
        return  # the first record's kind cannot be told, or is not what was asked
    counted = result.blank + result.converted + result.lossy + result.failed + result.refused
    counted += result.unread
    if result.lines != len(lines) or counted != result.lines:
        raise Crash(f"{result.lines} lines of {len(lines)}, {counted} accounted for")
    written = result.converted + result.lossy + result.kept
    if len(result.records) != written:
        raise Crash(f"{len(result.records)} records for {written} lines")
    if any(b"\n" in record or b"\r" in record for record in result.records):
        raise Crash("a record spans lines")


# -- streams --------------------------------------------------------------------


def _stream(name: str) -> Callable[[bytes], None]:
    codec = providers.get(name)

    def target(data: bytes) -> None:
        head = Header(data)
        framing = None if name in ONE_FRAMING else head.pick(FRAMINGS)
        rng = random.Random(head.byte())
        largest = 1 + head.byte() % 64
        payload = head.rest()
        decoder = codec.stream(framing)
        try:
            at = 0
            while at < len(payload):
                step = rng.randint(1, largest)
                decoder.feed(payload[at : at + step])
                at += step
            decoder.finish()
        except cc.ChatCodecError:
            pass

    target.__name__ = target.__qualname__ = f"{name}_stream"
    target.__doc__ = f"{name}: the stream decoder, fed the input split at random points."
    return target


def accumulator(data: bytes) -> None:
    """``ToolCallAccumulator`` fed deltas read from the input, then finished."""
    head = Header(data)
    acc = cc.ToolCallAccumulator(preview=bool(head.byte() & 1))
    try:
        while head.at < len(data):
            flags = head.byte()
            index = None if flags & 1 else head.byte() % 8
            call_id = head.text() if flags & 2 else None
            name = head.text() if flags & 4 else None
            arguments = head.text() if flags & 8 else None
            acc.feed(cc.ToolCallDelta(index, call_id, name, arguments))
        acc.finish()
    except cc.ChatCodecError:
        pass


TARGETS: dict[str, Callable[[bytes], None]] = {
    "canonical_json": canonical_json,
    "canonical_msgpack": canonical_msgpack,
    "lenient": lenient,
    "jsonl": jsonl,
    "untrusted": untrusted,
    **{f"{name}_decode": _family(name) for name in providers.NAMES},
    "convert": convert,
    "direct": direct,
    "bulk": bulk,
    **{f"{name}_stream": _stream(name) for name in providers.NAMES},
    "accumulator": accumulator,
    **surfaces.TARGETS,
}
"""Every target, by name."""

STREAMS = frozenset(f"{name}_stream" for name in providers.NAMES)


# -- seeds ----------------------------------------------------------------------


def _canonical(shared: bool) -> Iterator[bytes]:
    samples = Path(cc.__file__).parent / "samples"
    for path in sorted(samples.glob("*.jsonl")):
        lines = path.read_bytes().splitlines()
        yield from lines
        yield b"[" + b",".join(line for line in lines if line.strip()) + b"]"
    for path in files(DATA / "corpus"):
        yield path.read_bytes()
    yield b'{"v":2,"records":[{"role":"user","content":"Hi"}]}'
    yield b'{"v":1,"messages":[{"role":"user","content":"Hi"}]}'
    yield from _json_suite(shared)


def _json_suite(shared: bool) -> Iterator[bytes]:
    folders = [DATA / "jsontestsuite"]
    if shared:
        folders.append(CORPUS / "jsontestsuite" / "test_parsing")
    for folder in folders:
        if folder.exists():
            for path in sorted(folder.glob("*.json")):
                yield path.read_bytes()


def seeds(target: str, *, shared: bool = True) -> Iterator[bytes]:
    """Real inputs for ``target``, with its header when it reads one.

    ``shared`` adds the recorded corpus beside the project, when it exists.
    """
    if target in surfaces.TARGETS:
        yield from surfaces.seeds(target, shared=shared)
    elif target in {"canonical_json", "lenient", "jsonl", "untrusted"}:
        yield from _canonical(shared)
    elif target == "canonical_msgpack":
        for data in _canonical(False):
            try:
                yield msgspec.msgpack.encode(msgspec.json.decode(data))
            except (msgspec.DecodeError, UnicodeError, RecursionError, OverflowError):
                continue  # not JSON, or a number msgpack cannot hold
    elif target.endswith("_decode"):
        name = target.removesuffix("_decode")
        yield from bodies(name, ("request", "response"), shared)
        yield from _json_suite(False)
    elif target == "convert":
        for k, source in enumerate(providers.NAMES):
            for j, kind in enumerate(("request", "response")):
                for n, body in enumerate(bodies(source, (kind,), shared)):
                    yield bytes([k, n % len(providers.NAMES), j]) + body
    elif target == "direct":
        for k, source in enumerate(providers.NAMES):
            for n, body in enumerate(bodies(source, ("request",), shared)):
                other = (k + 1 + n % (len(providers.NAMES) - 1)) % len(providers.NAMES)
                yield bytes([k, other, n % len(MODELS), n // 3 % len(LIMITS)]) + body
    elif target == "bulk":
        openai = BULK_FAMILIES.index("openai")
        for name, code in (("openai-finetune", 0), ("openai-batch-input", 3)):
            path = DATA / "bulk" / f"{name}.jsonl"
            lines = path.read_bytes().splitlines() if path.exists() else []
            for n in range(0, len(lines), 3):
                header = bytes([openai, n % len(BULK_FAMILIES), code])
                yield header + b"\n".join(lines[n : n + 3])
        for k, source in enumerate(providers.NAMES):
            for j, kind in enumerate(("request", "response")):
                for n, body in enumerate(bodies(source, (kind,), shared)):
                    try:  # one record on one line
                        one = msgspec.json.encode(msgspec.json.decode(body))
                    except (msgspec.DecodeError, UnicodeError, RecursionError):
                        continue
                    yield bytes([k, n % len(BULK_FAMILIES), j]) + one
    elif target in STREAMS:
        name = target.removesuffix("_stream")
        folders = [DATA / "streams", DATA / "providers" / name / "stream"]
        paths = [p for folder in folders for p in files(folder) if p.name.startswith(name)]
        if shared:
            paths += corpus(API[name], "stream")
        for n, path in enumerate(paths):
            raw = stream_raw(path)
            if raw is not None:
                yield bytes([0, n % 256, 1 + n % 63]) + raw
    elif target == "accumulator":
        yield b'\x00\x0e\x00\x06call_1\x0bget_weather\x04{"ci\x08\x00\x0cty":"Paris"}'
        yield b"\x01\x0e\x00\x01a\x01f\x01{\x0e\x01\x01b\x01g\x02[]\x08\x00\x01}"
    else:
        raise KeyError(target)
