"""Validation and statistics over files of records: pure functions, no I/O.

:func:`validate_lines` decodes each record, runs the ordering rules and the
family's preflight (``check_request``), and reports every problem by line,
JSON path and rule. :func:`stats_lines` counts what the records hold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from .._conversation import _text_size
from .._errors import ChatCodecError, ValidationError
from .._exchange import Request, Response
from .._lenient import problem_of
from .._loss import Loss
from .._messages import AssistantMessage
from .._validate import Policy, validate
from . import _batch
from ._core import DUPLICATE_ID, NO_MESSAGES, codec_of, id_key
from ._detect import detect, guess_family
from ._families import PROVIDERS, family, normalize
from ._result import BulkResult, Kind, LineProblem

__all__ = ["read_record", "stats_lines", "validate_lines"]


def read_record(data: bytes, kind: Kind, name: str) -> tuple[list[Request], list[Response]]:
    """The requests and responses one record holds, read as ``kind`` of family ``name``."""
    adapter = family(name, batch=kind == "batch")
    losses: list[Loss] = []
    if kind == "batch":
        entry = _batch.read(name, data)
        if entry.body is None:
            return [], []
        if entry.part == "request":
            return [adapter.read_request(entry.body, losses)], []
        return [], [adapter.read_response(entry.body)]
    if kind == "response":
        return [], [adapter.read_response(data)]
    return [adapter.read_request(data, losses)], []


def _lines(lines: Iterable[bytes | str]) -> Iterable[tuple[int, bytes]]:
    for number, line in enumerate(lines, 1):
        yield number, line.encode() if isinstance(line, str) else line


def validate_lines(
    lines: Iterable[bytes | str],
    *,
    source: str | None = None,
    kind: Kind | None = None,
    policy: Policy = "lenient",
) -> tuple[BulkResult, str]:
    """Check every record; return the problems and the family they were read as.

    ``converted`` counts the sound lines, ``failed`` those with errors.

    The kind is told from the first record when not given, and so is the
    family (a guess from the top-level keys, named in the answer). The
    ordering rules are those of ``policy`` (see :func:`chatcodec.validate`);
    what a provider itself refuses is its preflight's to say. A request with
    no message is an error, and so are batch ids the provider refuses
    (missing, repeated, or not of its pattern). With the ``provider`` policy
    these are the rules ``chatcodec convert`` holds every record it writes
    to: a record one of them refuses, the other does too.
    """
    result = BulkResult()
    name = normalize(source) if source is not None else ""
    seen: dict[int, int] = {}
    for number, data in _lines(lines):
        result.lines += 1
        if not data.strip():
            result.blank += 1
            continue
        found: list[LineProblem] = []
        try:
            if not result.kind:
                result.kind = kind or detect(data)[0]
                name = name or guess_family(data, result.kind)[0]
            batched = result.kind == "batch"
            if batched:
                entry = _batch.read(name, data)
                key = id_key(entry.id or "")
                if key in seen:
                    rule = DUPLICATE_ID.format(line=seen[key])
                    path = _batch.ID_PATHS.get(name, "$.id")
                    found.append(LineProblem(number, path, rule, "error", "preflight"))
                seen.setdefault(key, number)
                for p in _batch.id_problems(name, entry):
                    found.append(LineProblem(number, p.path, p.rule, p.severity, "preflight"))
            requests, _responses = read_record(data, result.kind, name)  # type: ignore[arg-type]
        except ChatCodecError as error:
            problem = problem_of(error, "$")
            result.problems.append(LineProblem(number, problem.path, problem.rule, "error", "read"))
            result.failed += 1
            continue
        codec = codec_of(name, batched) if name in PROVIDERS else None
        for request in requests:
            if not request.messages:
                found.append(LineProblem(number, "$.messages", NO_MESSAGES, "error", "read"))
                continue
            for p in validate(request.messages, policy=policy, collect=True):
                path = "$.messages" + p.path[1:]
                found.append(LineProblem(number, path, p.rule, p.severity, "order"))
            if codec is not None:
                bedrock = batched and name == "bedrock"
                for p in codec.check_request(request):
                    if bedrock and p.path == "$.model":
                        continue  # the batch job names the model
                    found.append(LineProblem(number, p.path, p.rule, p.severity, "preflight"))
        result.problems.extend(found)
        if any(p.severity == "error" for p in found):
            result.failed += 1
        else:
            result.converted += 1
    return result, name


def stats_lines(
    lines: Iterable[bytes | str], *, source: str | None = None, kind: Kind | None = None
) -> dict[str, Any]:
    """What a file of records holds: kinds, families, roles, tool calls, sizes, tokens.

    Each record's kind and family are told from its own keys, unless given.
    """
    name = normalize(source) if source is not None else None
    roles: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    families: Counter[str] = Counter()
    counts = Counter[str]()
    chars = 0
    largest = 0
    for _number, data in _lines(lines):
        counts["lines"] += 1
        counts["bytes"] += len(data)
        largest = max(largest, len(data))
        if not data.strip():
            counts["blank"] += 1
            continue
        try:
            found = kind or detect(data)[0]
            family = name or guess_family(data, found)[0]
            requests, responses = read_record(data, found, family)
        except (ChatCodecError, ValidationError):
            counts["unreadable"] += 1
            continue
        counts["records"] += 1
        kinds[found] += 1
        families[family] += 1
        messages = [m for r in requests for m in r.messages]
        messages += [c.message for r in responses for c in r.choices if c.message is not None]
        for message in messages:
            roles[message.role] += 1
            chars += _text_size(message)
            if isinstance(message, AssistantMessage):
                counts["tool calls"] += len(message.tool_calls)
                counts["parallel calls"] += len(message.tool_calls) > 1
        counts["messages"] += len(messages)
        if not messages:
            counts["empty"] += 1  # read as the family given, it holds nothing
        counts["requests"] += len(requests)
        counts["responses"] += len(responses)
    return {
        "lines": counts["lines"],
        "records": counts["records"],
        "blank": counts["blank"],
        "unreadable": counts["unreadable"],
        "empty": counts["empty"],
        "requests": counts["requests"],
        "responses": counts["responses"],
        "messages": counts["messages"],
        "roles": dict(roles.most_common()),
        "tool_calls": counts["tool calls"],
        "parallel_calls": counts["parallel calls"],
        "tokens_estimate": (chars + 3) // 4,
        "bytes": counts["bytes"],
        "largest_record_bytes": largest,
        "kinds": dict(kinds.most_common()),
        "families": dict(families.most_common()),
    }
