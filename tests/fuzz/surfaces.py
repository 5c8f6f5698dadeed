"""Fuzz targets of the surfaces around the decoders: HTTP, stream translation and encoding.

Each target reads its choices from the front of the input (:class:`Header`)
and checks a promise beyond "no foreign exception":

- ``http``: the readers of :mod:`chatcodec.http` answer or raise one of
  chatcodec's errors, and the error of a status other than 2xx is a
  :class:`~chatcodec.ProviderError` that carries that status and a usable wait;
- ``translate_stream``: what a translator writes, the target family's own
  stream decoder reads, with the source's text and tool calls;
- ``stream_encode``: what a family's stream encoder writes from the events its
  decoder read, the decoder reads back to the same text and calls;
- ``encode_stream``: a whole response written as a stream reads back the same;
- ``conversation``: a :class:`~chatcodec.Conversation` under random operations
  holds what a plain list would, and validation stays a pure function;
- ``convert_generated``: valid records built from the input convert into every
  family, and the target reads what was written.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

from harness import API, DATA, Crash, Header, bodies, corpus, files, ours, stream_raw

import chatcodec as cc
from chatcodec import http, providers
from chatcodec._headers import MAX_WAIT

__all__ = ["TARGETS", "seeds"]

# -- http -------------------------------------------------------------------------

# Every name the readers take: the families and the services speaking one.
HTTP_NAMES: tuple[str, ...] = (*providers.NAMES, *providers.ALIASES)
STATUSES: tuple[int, ...] = (
    200,
    201,
    204,
    299,
    300,
    304,
    400,
    401,
    403,
    404,
    408,
    413,
    429,
    500,
    502,
    503,
    529,
)
STATUSES += (0, -1, 99, 100, 199, 600, 999, 2**31, -(2**63), 2**64)
HEADER_NAMES = (
    "retry-after",
    "Retry-After",
    "retry-after-ms",
    "content-type",
    "x-amzn-ErrorType",
    "x-request-id",
)
RETRY_VALUES = (
    "7",
    "1.5",
    "-1",
    "nan",
    "inf",
    "1e400",
    "Wed, 21 Oct 2015 07:28:30 GMT",
    "Fri, 31 Dec 99999 23:59:59 GMT",
    "Sun, 40 Feb 2026 00:00:00 GMT",
    "Mon, 01 Jan 0001 00:00:00 -0000",
    "application/json",
    "text/event-stream",
    "ThrottlingException:http://internal.amazon.com/coral/",
)
NOWS: tuple[float | None, ...] = (None, 0.0, 1445412480.0, 1e12, -1e12)


def _headers(head: Header) -> Any:
    """Headers as a client gives them: a str mapping, a bytes mapping, or pairs."""
    pairs: list[tuple[str, str]] = []
    for _ in range(head.byte() % 5):
        flags = head.byte()
        name = head.pick(HEADER_NAMES) if flags & 1 else head.text()
        value = head.pick(RETRY_VALUES) if flags & 2 else head.text()
        pairs.append((name, value))
    form = head.byte() % 3
    if form == 0:
        return dict(pairs)
    # Bytes as a client hands them (Latin-1); a name or value it cannot hold is left out.
    raw = []
    for name, value in pairs:
        try:
            raw.append((name.encode("latin-1"), value.encode("latin-1")))
        except UnicodeEncodeError:
            continue
    return dict(raw) if form == 1 else raw


def _check_error(error: cc.ProviderError, status: int, where: str) -> None:
    if error.status != status:
        raise Crash(f"{where}: the error says status {error.status}, not {status}")
    wait = error.retry_after
    if wait is not None and not (math.isfinite(wait) and 0 <= wait <= MAX_WAIT):
        raise Crash(f"{where}: retry_after {wait!r} is no wait a loop can sleep on")


def http_readers(data: bytes) -> None:
    """``read_response``, ``read_stream`` and ``read_error`` of any status, headers, body."""
    head = Header(data)
    family = head.pick(HTTP_NAMES)
    b = head.byte()
    status = STATUSES[b % len(STATUSES)] if b < 128 else (b - 128) * 256 + head.byte()
    headers = _headers(head)
    now = head.pick(NOWS)
    flags = head.byte()
    limits: dict[str, Any] = {}
    if flags & 2:
        limits = {"max_line": 64 + head.byte() * 64, "max_event": 64 + head.byte() * 256}
    raw = head.rest()
    body: bytes | str = raw.decode("utf-8", "surrogateescape") if flags & 1 else raw
    ok = 200 <= status < 300
    wait = http.retry_after(http.Headers(headers), now=now)
    if wait is not None and not (math.isfinite(wait) and 0 <= wait <= MAX_WAIT):
        raise Crash(f"retry_after gave {wait!r}")
    _check_error(http.read_error(family, status, headers, body, now=now), status, "read_error")
    try:
        http.read_response(family, status, headers, body, now=now)
    except cc.ProviderError as error:
        _check_error(error, status, "read_response")
    except cc.ChatCodecError:
        if not ok:
            raise Crash(f"read_response of status {status}: not a ProviderError") from None
    try:
        decoder = http.read_stream(family, status, headers, body, now=now, **limits)
    except cc.ProviderError as error:
        if ok:
            raise Crash("read_stream of a 2xx status raised its error") from error
        _check_error(error, status, "read_stream")
        return
    if not ok:
        raise Crash(f"read_stream of status {status} gave a decoder")
    if isinstance(body, str):
        return  # a stream decoder takes bytes
    try:
        rng = random.Random(flags)
        at = 0
        while at < len(raw):
            step = rng.randint(1, 512)
            decoder.feed(raw[at : at + step])
            at += step
        decoder.finish()
    except cc.ChatCodecError:
        pass


def _status(status: int) -> bytes:
    """The header bytes that choose ``status``."""
    return bytes([128 + status // 256, status % 256])


def _http_seeds(shared: bool) -> Iterator[bytes]:
    """Recorded bodies and errors behind a status and headers."""
    for k, name in enumerate(providers.NAMES):
        for n, path in enumerate(files(DATA / "providers" / name / "error")):
            found = re.search(r"http(\d{3})", path.name)
            status = _status(int(found.group(1)) if found else 429)
            # One header chosen from the lists: Retry-After of several forms.
            header = bytes([1, 3, 0, n % len(RETRY_VALUES), n % 3, n % len(NOWS), n % 2])
            yield bytes([k]) + status + header + path.read_bytes()
        for n, body in enumerate(bodies(name, ("response",), shared)):
            if n < 40:
                yield bytes([k, 0, 1, 3, 3, 10, 0, 0, 0]) + body  # 200, JSON content type
        paths = [p for p in files(DATA / "streams") if p.name.startswith(name)]
        if shared:
            paths += corpus(API[name], "stream")
        for n, path in enumerate(paths[:20]):
            raw = stream_raw(path)
            if raw is not None:
                limits = b"\x02\x40\x40" if n % 2 else b"\x00"
                yield bytes([k, 0, 1, 3, 3, 11, 0, 0]) + limits + raw


# -- generated records ----------------------------------------------------------

NAMES = ("get_weather", "search", "f", "lookup_order_42", "A_b")
FINISHES: tuple[Any, ...] = (None, *cc.FinishReason)


def _clean(text: str) -> str:
    """``text`` as valid Unicode: a generated record is a valid one."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _value(head: Header, depth: int = 0) -> Any:
    """A JSON value read from the input (small, a few levels deep)."""
    kind = head.byte() % (7 if depth < 3 else 5)
    if kind == 0:
        return _clean(head.text())
    if kind == 1:
        return head.byte() - 128
    if kind == 2:
        return head.byte() / 7
    if kind == 3:
        return bool(head.byte() & 1)
    if kind == 4:
        return None
    if kind == 5:
        return [_value(head, depth + 1) for _ in range(head.byte() % 4)]
    return _arguments(head, depth + 1)


def _arguments(head: Header, depth: int = 0) -> dict[str, Any]:
    return {_clean(head.text()) or "k": _value(head, depth) for _ in range(head.byte() % 4)}


def _call(head: Header, n: int) -> cc.ToolCall:
    return cc.tool_call(f"call_{n}_{head.byte():02x}", head.pick(NAMES), _arguments(head))


def _answer(head: Header) -> cc.AssistantMessage:
    """An assistant message: text, maybe reasoning first, and tool calls."""
    flags = head.byte()
    calls = tuple(_call(head, n) for n in range(flags % 3))
    text = _clean(head.text())
    parts: list[Any] = []
    if flags & 4:
        parts.append(cc.ReasoningPart(_clean(head.text()) or "thinking"))
    if text or not calls or flags & 8:
        parts.append(cc.TextPart(text))
    if not parts:
        return cc.assistant(None, calls)
    return cc.AssistantMessage(tuple(parts), calls)


def generated_response(head: Header) -> cc.Response:
    """A valid response built from the input: one answer, a finish reason, maybe usage."""
    message = _answer(head)
    finish = head.pick(FINISHES)
    if finish is None and message.tool_calls and head.byte() & 1:
        finish = cc.FinishReason.TOOL_CALLS
    usage = None
    if head.byte() & 1:
        usage = cc.Usage(prompt_tokens=head.byte(), completion_tokens=head.byte())
    return cc.Response(
        (cc.Choice(message, finish),), id=f"resp_{head.byte()}", model="m", usage=usage
    )


def generated_request(head: Header) -> cc.Request:
    """A valid request: a system prompt maybe, turns, calls answered, tools declared."""
    messages: list[Any] = []
    if head.byte() & 1:
        messages.append(cc.system(_clean(head.text()) or "Be brief."))
    used: set[str] = set()
    for turn in range(1 + head.byte() % 3):
        messages.append(cc.user(_clean(head.text()) or "Hi"))
        answer = _answer(head)
        messages.append(answer)
        for call in answer.tool_calls:
            used.add(call.name)
            messages.append(cc.tool_result(call.id, _clean(head.text()), name=call.name))
        if answer.tool_calls and turn % 2 == 0:
            messages.append(cc.assistant(_clean(head.text()) or "Done."))
    if messages[-1].role != "user":
        messages.append(cc.user(_clean(head.text()) or "Go on."))
    tools = tuple(
        cc.ToolDefinition(name, parameters={"type": "object", "properties": {}})
        for name in sorted(used)
    )
    temperature = head.byte() / 128 if head.byte() & 1 else None
    return cc.Request(
        tuple(messages), model="m", tools=tools, max_tokens=64, temperature=temperature
    )


# -- streams ----------------------------------------------------------------------


def _split(codec: Any, payload: bytes, rng: random.Random, largest: int) -> tuple[list[Any], Any]:
    """Feed a stream decoder ``payload`` at random splits: its events, and the decoder."""
    decoder = codec.stream()
    events: list[Any] = []
    at = 0
    while at < len(payload):
        step = rng.randint(1, largest)
        events += decoder.feed(payload[at : at + step])
        at += step
    events += decoder.flush()
    return events, decoder


def _read_stream(name: str, stream: bytes, where: str, *, cut: bool = False) -> cc.Response:
    """What ``name``'s own stream decoder reads of ``stream``; refusing it is a crash.

    ``cut``: the stream was written from a response that was itself cut off.
    """
    decoder = providers.get(name).stream()
    try:
        decoder.feed(stream)
        response: cc.Response = decoder.finish(allow_incomplete=cut)
    except cc.ChatCodecError as exc:
        raise Crash(f"{where}: {name}'s stream decoder refuses the output: {exc}") from exc
    return response


def _calls(response: cc.Response) -> list[tuple[str, Any]]:
    return [(call.name, call.arguments) for call in response.tool_calls]


def _names(response: cc.Response) -> list[str]:
    return [call.name for call in response.tool_calls]


def _same(before: cc.Response, after: cc.Response, where: str, *, arguments: bool = True) -> None:
    """The text and the tool calls (names, and arguments unless told) came through."""
    if after.text != before.text:
        raise Crash(f"{where}: text {len(before.text)} chars became {len(after.text)}")
    got, want = (_calls(after), _calls(before)) if arguments else (_names(after), _names(before))
    if got != want:
        raise Crash(f"{where}: tool calls {want!r} became {got!r}")


def translate(data: bytes) -> None:
    """``translate_stream`` for every pair at random splits; the target reads the output."""
    head = Header(data)
    source, target = head.pick(providers.NAMES), head.pick(providers.NAMES)
    rng = random.Random(head.byte())
    largest = 1 + head.byte() % 64
    payload = head.rest()
    translator = cc.translate_stream(source, target)
    out: list[bytes] = []
    try:
        at = 0
        while at < len(payload):
            step = rng.randint(1, largest)
            out.append(translator.feed(payload[at : at + step]))
            at += step
        try:
            tail, report = translator.finish()
            clean = True
        except cc.StreamError:
            tail, report = translator.finish(allow_incomplete=True)
            clean = False
    except cc.ChatCodecError:
        return  # the source stream is malformed or reports an error
    where = f"translate_stream {source} -> {target}"
    got = _read_stream(target, b"".join(out) + tail, where)
    if not clean:
        return
    # The source read cleanly: what it said came through, or the report says why not.
    # The source's response is built now, and may still be refused (a usage count
    # that is no integer, which the events passed over): then there is no whole.
    before = ours(lambda: translator.response)
    if before is not None and not report and len(before.choices) <= 1:
        _same(before, got, where, arguments=False)


def stream_encode(data: bytes) -> None:
    """A family's stream encoder fed the events its decoder read; the decoder reads it back."""
    head = Header(data)
    name = head.pick(providers.NAMES)
    codec = providers.get(name)
    rng = random.Random(head.byte())
    largest = 1 + head.byte() % 64
    try:
        events, decoder = _split(codec, head.rest(), rng, largest)
        before = decoder.finish()
    except cc.ChatCodecError:
        return
    losses: list[cc.Loss] = []
    encoder = codec.stream_encoder(cc.Response(id=before.id, model=before.model), losses=losses)
    try:
        written = encoder.encode_all(events) + encoder.finish()
    except cc.ChatCodecError:
        return  # refused whole, with its reason
    after = _read_stream(name, written, f"{name} stream encoder")
    if not losses and len(before.choices) <= 1:
        _same(before, after, f"{name} stream encoder")


def encode_stream(data: bytes) -> None:
    """``encode_stream`` of a generated or decoded response; the family reads it back."""
    head = Header(data)
    name = head.pick(providers.NAMES)
    codec = providers.get(name)
    if head.byte() & 1:
        response = ours(codec.decode_response, head.rest())
        if response is None:
            return
    else:
        try:
            response = generated_response(head)
        except cc.ChatCodecError as exc:
            raise Crash("a generated response is not valid") from exc
    losses: list[cc.Loss] = []
    try:
        written = codec.encode_stream(response, losses=losses)
    except cc.ChatCodecError:
        return
    # A recorded Ollama chunk keeps its "done": false: written out, its stream is one
    # cut before the last line, as the encoder's docstring says.
    own = (response.extras or {}).get(name)
    cut = isinstance(own, dict) and own.get("done") is False
    after = _read_stream(name, written, f"{name} encode_stream", cut=cut)
    if not losses and len(response.choices) == 1:
        _same(response, after, f"{name} encode_stream")


# -- conversion of generated records ----------------------------------------------

KINDS: tuple[Any, ...] = ("request", "response")
Kind = Literal["request", "response"]


def _generated_body(head: Header, codec: Any, kind: str) -> tuple[Any, bytes] | None:
    """A valid record of ``kind`` built from the input, and its body in ``codec``'s family."""
    try:
        record = generated_request(head) if kind == "request" else generated_response(head)
    except cc.ChatCodecError as exc:
        raise Crash(f"a generated {kind} is not valid") from exc
    try:
        body: bytes = getattr(codec, f"encode_{kind}")(record)
    except cc.ChatCodecError:
        return None  # the source family cannot write it, and says so
    return record, body


def _call_names(record: Any) -> list[str]:
    messages = (
        (c.message for c in record.choices)
        if isinstance(record, cc.Response)
        else (m for m in record.messages)
    )
    return [c.name for m in messages if isinstance(m, cc.AssistantMessage) for c in m.tool_calls]


def convert_generated(data: bytes) -> None:
    """``convert`` of generated valid records into every family, ``convert_lines`` into one."""
    head = Header(data)
    source = head.pick(providers.NAMES)
    kind: Kind = head.pick(KINDS)
    codec = providers.get(source)
    # convert_lines, whose run costs more than a conversion, into one family the input picks.
    bulk_target = head.pick(providers.NAMES)
    made = [_generated_body(head, codec, kind) for _ in range(1 + head.byte() % 3)]
    lines = [found[1] for found in made if found is not None]
    if not lines:
        return
    body = lines[0]
    read = getattr(codec, f"decode_{kind}")(body)  # what a family writes, it reads
    _lines(lines, source, bulk_target, kind)
    for target in providers.NAMES:
        where = f"convert {source} -> {target} {kind}"
        try:
            out, report = cc.convert(
                body, source=source, target=target, kind=kind, model="m", max_tokens=64
            )
        except cc.DecodeError as exc:
            raise Crash(f"{where}: the source's own body is not read") from exc
        except cc.ChatCodecError as exc:
            if not str(exc):
                raise Crash(f"{where}: refused without a reason") from exc
            continue
        try:
            got = getattr(providers.get(target), f"decode_{kind}")(out)
        except cc.ChatCodecError as exc:
            raise Crash(f"{where}: the target refuses the output") from exc
        if not report and _call_names(got) != _call_names(read):
            raise Crash(f"{where}: tool calls changed with nothing reported")
        if not report and kind == "response" and got.text != read.text:
            raise Crash(f"{where}: the text changed with nothing reported")


def _lines(lines: list[bytes], source: str, target: str, kind: Kind) -> None:
    """``convert_lines``: each line converts and reads in the target, or a problem names it."""
    where = f"convert_lines {source} -> {target} {kind}"
    try:
        result = cc.convert_lines(
            lines, source=source, target=target, kind=kind, model="m", max_tokens=64
        )
    except cc.ChatCodecError as exc:
        raise Crash(f"{where}: a run of valid records stopped") from exc
    counted = result.blank + result.converted + result.lossy + result.failed + result.refused
    if result.lines != len(lines) or counted + result.unread != len(lines):
        raise Crash(f"{where}: {counted} of {len(lines)} lines accounted for")
    told = {problem.line for problem in result.problems}
    if len(told) < result.failed + result.refused:
        raise Crash(f"{where}: a line failed with no problem naming it")
    decode = getattr(providers.get(target), f"decode_{kind}")
    for record in result.records:
        try:
            decode(record)
        except cc.ChatCodecError as exc:
            raise Crash(f"{where}: the target refuses a record written") from exc


# -- conversations ----------------------------------------------------------------

POLICIES: tuple[Any, ...] = ("strict", "provider", "lenient")
APPROVALS: tuple[Any, ...] = ("pending", "approved", "denied", None, "maybe")


def _agent() -> list[Any]:
    """An ordinary agent transcript: a text answer, then a call, then its result."""
    return [
        cc.user("What is the weather in Paris?"),
        cc.assistant("Let me look."),
        cc.assistant(None, [cc.tool_call("call_1", "get_weather", {"city": "Paris"})]),
        cc.tool_result("call_1", "18C", name="get_weather"),
    ]


FIXED: tuple[tuple[Any, ...], ...] = (
    (cc.system("Be brief."), cc.user("Hi"), cc.assistant("Hello.")),
    tuple(_agent()),
    (cc.system("s"), *_agent()[:1], *_agent()[2:], cc.assistant("18C."), cc.user("Thanks")),
    (cc.user("Hi"), cc.tool_result("call_9", "orphan")),
    (cc.assistant("first"),),
)
"""Histories whose validation never changes, whatever ran before in the process."""


def _problems(history: tuple[Any, ...], policy: Any) -> list[str]:
    return [str(problem) for problem in cc.validate(history, policy=policy, collect=True)]


# Computed when the module is imported, before any input: what a fresh process says.
EXPECTED = {(n, policy): _problems(h, policy) for n, h in enumerate(FIXED) for policy in POLICIES}
if EXPECTED[1, "provider"] or EXPECTED[1, "lenient"] or EXPECTED[2, "strict"]:
    raise RuntimeError("a valid history is refused in a fresh process")


def _message(head: Header, model: list[Any], serial: list[int]) -> Any:
    """A message to add: any role, calls with fresh ids, results of calls made or not."""
    serial[0] += 1
    n = serial[0]
    ident = f"m{n}" if head.byte() & 1 else head.pick((None, "m1", "m2", "dup"))
    kind = head.byte() % 7
    if kind == 0:
        return cc.system(_clean(head.text()) or "s", id=ident)
    if kind == 1:
        return cc.developer(_clean(head.text()) or "d", id=ident)
    if kind in (2, 3):
        return cc.user(_clean(head.text()) or "u", id=ident)
    if kind == 4:
        calls = [cc.tool_call(f"c{n}_{k}", head.pick(NAMES)) for k in range(head.byte() % 3)]
        text = _clean(head.text()) if not calls or head.byte() & 1 else None
        return cc.AssistantMessage(text, tuple(calls), id=ident)
    if kind == 5:
        return cc.assistant(_clean(head.text()) or "a", id=ident)
    made = [c.id for m in model if isinstance(m, cc.AssistantMessage) for c in m.tool_calls]
    call = head.pick(tuple(made)) if made and head.byte() & 3 else f"c{head.byte()}"
    return cc.tool_result(call, _clean(head.text()), id=ident)


def _first(model: list[Any], ident: str) -> int | None:
    return next((k for k, m in enumerate(model) if getattr(m, "id", None) == ident), None)


def _allowed(history: list[Any], policy: Any) -> bool:
    try:
        cc.validate(history, policy=policy)
    except cc.OrderingError:
        return False
    return True


def _apply(
    action: Callable[..., Any],
    args: tuple[Any, ...],
    candidate: list[Any] | None,
    model: list[Any],
    policy: Any,
) -> Any:
    """Run ``action(*args)``: it must succeed when ``candidate`` (None: not found) is valid."""
    expected = candidate is not None and _allowed(candidate, policy)
    try:
        result = action(*args)
    except cc.NotFoundError:
        if candidate is not None:
            raise Crash("a record that is there was not found") from None
        return None
    except cc.OrderingError:
        if expected:
            raise Crash("a valid history was refused") from None
        return None
    if not expected:
        raise Crash("an invalid history (or a missing id) was taken")
    model[:] = candidate or []
    return result


def conversation(data: bytes) -> None:
    """``Conversation`` under random operations, against a list; validation stays pure."""
    head = Header(data)
    policy = head.pick(POLICIES)
    conv = cc.Conversation(policy=policy)
    model: list[Any] = []
    serial = [0]
    while head.at < len(data):
        op = head.byte() % 10
        if op in (0, 1):
            message = _message(head, model, serial)
            _apply(conv.add, (message,), [*model, message], model, policy)
        elif op == 2:
            batch = [_message(head, model, serial) for _ in range(head.byte() % 4)]
            _apply(conv.extend, (batch,), [*model, *batch], model, policy)
        elif op in (3, 4):
            ident = head.pick(("m1", "m2", "dup", f"m{head.byte() % (serial[0] + 1)}"))
            at = _first(model, ident)
            if op == 3:
                new = _message(head, model, serial)
                candidate = None if at is None else [*model[:at], new, *model[at + 1 :]]
                _apply(conv.replace, (ident, new), candidate, model, policy)
            else:
                candidate = None if at is None else [*model[:at], *model[at + 1 :]]
                removed = _apply(conv.remove, (ident,), candidate, model, policy)
                if at is not None and removed is not None and getattr(removed, "id", 0) != ident:
                    raise Crash("remove returned another record")
        elif op == 5:
            conv.clear()
            model.clear()
        elif op == 6:
            _approve(head, conv, model)
        elif op == 7:
            _fixed(head)
        elif op == 8:
            if conv.copy().messages != tuple(model) or conv.copy() != conv:
                raise Crash("a copy differs")
        else:
            again = cc.Conversation(model, policy=policy)  # what is held is valid
            if again.messages != conv.messages:
                raise Crash("a history rebuilt from its messages differs")
        _agrees(conv, model, policy)


def _approve(head: Header, conv: cc.Conversation, model: list[Any]) -> None:
    made = [c.id for m in model if isinstance(m, cc.AssistantMessage) for c in m.tool_calls]
    call = head.pick(tuple(made)) if made and head.byte() & 1 else "nope"
    approval = head.pick(APPROVALS)
    at = next(
        (
            k
            for k in range(len(model) - 1, -1, -1)
            if isinstance(model[k], cc.AssistantMessage)
            and any(c.id == call for c in model[k].tool_calls)
        ),
        None,
    )
    try:
        updated = conv.set_approval(call, approval)
    except cc.NotFoundError:
        if at is not None:
            raise Crash("set_approval did not find a call that was made") from None
        return
    except cc.ValidationError:
        if approval in APPROVALS[:4]:
            raise Crash(f"set_approval refused {approval!r}") from None
        return
    if at is None or approval not in APPROVALS[:4]:
        raise Crash("set_approval took what it should refuse")
    model[at] = updated


def _fixed(head: Header) -> None:
    """The fixed histories validate as in a fresh process, and build when valid."""
    for n, history in enumerate(FIXED):
        policy = head.pick(POLICIES)
        if _problems(history, policy) != EXPECTED[n, policy]:
            raise Crash(f"validation of fixed history {n} under {policy!r} changed")
        built = ours(cc.Conversation, history, policy=policy)
        if (built is None) != bool(EXPECTED[n, policy]):
            raise Crash(f"Conversation of fixed history {n} under {policy!r} changed")


def _agrees(conv: cc.Conversation, model: list[Any], policy: Any) -> None:
    """The conversation holds what the list holds, and what it holds is valid."""
    if conv.messages != tuple(model) or len(conv) != len(model):
        raise Crash(f"the history holds {len(conv)} messages, the list {len(model)}")
    if conv.last != (model[-1] if model else None):
        raise Crash("last differs")
    for ident in {m.id for m in model if m.id is not None}:
        if conv.get(ident) != model[_first(model, ident) or 0]:
            raise Crash(f"get({ident!r}) differs")
    if cc.validate(model, policy=policy, collect=True):
        raise Crash("a history the conversation holds does not validate")


# -- seeds ------------------------------------------------------------------------


def _streams(name: str, shared: bool) -> list[bytes]:
    """The recorded streams of a family."""
    folders = [DATA / "streams", DATA / "providers" / name / "stream"]
    paths = [p for folder in folders for p in files(folder) if p.name.startswith(name)]
    if shared:
        paths += corpus(API[name], "stream")
    return [raw for raw in map(stream_raw, paths) if raw is not None]


def _translate_seeds(shared: bool) -> Iterator[bytes]:
    for k, name in enumerate(providers.NAMES):
        for n, raw in enumerate(_streams(name, shared)):
            yield bytes([k, n % len(providers.NAMES), n % 256, 1 + n % 63]) + raw


def _stream_encode_seeds(shared: bool) -> Iterator[bytes]:
    for k, name in enumerate(providers.NAMES):
        for n, raw in enumerate(_streams(name, shared)):
            yield bytes([k, n % 256, 1 + n % 63]) + raw


def _generated(count: int) -> Iterator[bytes]:
    """Inputs for the generators: every choice byte, then a little text."""
    rng = random.Random(0)
    for n in range(count):
        yield bytes([n % 256]) + rng.randbytes(120)


def _encode_stream_seeds(shared: bool) -> Iterator[bytes]:
    for k, name in enumerate(providers.NAMES):
        for n, body in enumerate(bodies(name, ("response",), shared)):
            if n < 60:
                yield bytes([k, 1]) + body
        for data in _generated(20):
            yield bytes([k, 0]) + data


def _conversation_seeds(shared: bool) -> Iterator[bytes]:
    del shared  # generated: nothing recorded to start from
    for policy in range(3):
        # The agent transcript, step by step: user, text answer, a call, its result,
        # then the fixed histories checked, a copy, a rebuild and a removal.
        yield bytes(
            [policy, 0, 1, 2, 1, b"h"[0], 0, 1, 5, 1, b"a"[0], 0, 3, 4, 1, 0, 0, 1, 6, 1, 1, 0]
        ) + bytes([7, 0, 1, 2, 0, 1, 8, 9, 4, 0, 0, 6, 1, 0, 1])
        yield from (bytes([policy]) + data for data in _generated(10))


def _convert_generated_seeds(shared: bool) -> Iterator[bytes]:
    del shared  # generated: nothing recorded to start from
    for k in range(len(providers.NAMES)):
        for j in range(len(KINDS)):
            for n, data in enumerate(_generated(6)):
                yield bytes([k, j, (k + n) % len(providers.NAMES)]) + data


TARGETS: dict[str, Callable[[bytes], None]] = {
    "http": http_readers,
    "translate_stream": translate,
    "stream_encode": stream_encode,
    "encode_stream": encode_stream,
    "conversation": conversation,
    "convert_generated": convert_generated,
}
"""The targets of this module, by name."""

_SEEDS: dict[str, Callable[[bool], Iterator[bytes]]] = {
    "http": _http_seeds,
    "translate_stream": _translate_seeds,
    "stream_encode": _stream_encode_seeds,
    "encode_stream": _encode_stream_seeds,
    "conversation": _conversation_seeds,
    "convert_generated": _convert_generated_seeds,
}


def seeds(target: str, *, shared: bool = True) -> Iterator[bytes]:
    """Real inputs for ``target``, with its header (``shared``: the corpus too).

    Taken in turn by their first header byte (the family, or the policy), so
    that the first few seeds already cover every choice.
    """
    groups: dict[int, list[bytes]] = {}
    for data in _SEEDS[target](shared):
        groups.setdefault(data[0], []).append(data)
    for row in itertools.zip_longest(*groups.values()):
        yield from (data for data in row if data is not None)
