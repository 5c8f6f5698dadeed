"""The one pure function of bulk conversion: records in, records and problems out.

Every engine (the command line, the process pool, Dask) calls
:func:`convert_lines` on a run of lines and writes what it returns: no I/O
happens here. A line is converted, converted with losses, or failed; blank
lines are counted apart, and a strict run counts what it left unread.
Provider to provider goes through :func:`chatcodec.convert`; ``chatcodec``
(canonical JSON), ``sharegpt`` and ``bedrock`` go through their adapters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from .._convert import convert
from .._errors import ChatCodecError, ValidationError
from .._lenient import problem_of
from .._loss import Loss
from .._problems import Severity
from ..providers import get
from ..providers._direct import direct
from . import _batch
from ._detect import detect
from ._families import (
    BEDROCK_NO_MODEL,
    PROVIDERS,
    fill,
    normalize,
    unwrap,
    wrap,
)
from ._families import family as family_of
from ._result import KINDS, BulkResult, Kind, LineProblem

__all__ = ["Plan", "convert_lines"]


class Plan(msgspec.Struct, frozen=True):
    """A conversion's settings, checked: what every worker is given."""

    source: str
    target: str
    kind: Kind
    model: str | None = None
    max_tokens: int | None = None
    strict: bool = False
    include_content: bool = False

    @classmethod
    def make(cls, source: str, target: str, kind: Kind, **options: Any) -> Plan:
        """Check the names and the kind against each other."""
        source, target = normalize(source), normalize(target)
        if kind not in KINDS:
            raise ValidationError(f"kind must be one of {', '.join(KINDS)}", "$")
        if kind == "transcript" and source != "chatcodec":
            raise ValidationError(
                "a transcript is chatcodec's own JSON: convert it --from chatcodec", "$"
            )
        if kind == "sharegpt" and source != "sharegpt":
            raise ValidationError("ShareGPT records convert --from sharegpt", "$")
        if source == "sharegpt" and kind != "sharegpt":
            raise ValidationError(f"--from sharegpt reads ShareGPT records, not a {kind}", "$")
        if kind == "batch" and "sharegpt" in (source, target):
            raise ValidationError("ShareGPT has no batch file format", "$")
        if kind == "response" and target == "sharegpt":
            raise ValidationError("sharegpt holds conversations, not responses", "$")
        return cls(source, target, kind, **options)


def _lines(lines: Iterable[bytes | str]) -> Iterator[bytes]:
    for line in lines:
        yield line.encode() if isinstance(line, str) else line


class _Converter:
    """One line at a time, for one plan."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        # A Bedrock batch record holds Claude's own body (Anthropic Messages), not a
        # Converse one. Provider to provider goes through convert.
        self.batched = plan.kind == "batch"
        self.source = family_of(plan.source, batch=self.batched)
        self.target = family_of(plan.target, batch=self.batched)
        inner = {"bedrock": "anthropic"} if self.batched else {}
        self.via_convert = {plan.source, plan.target} <= PROVIDERS
        self.convert_source = inner.get(plan.source, plan.source)
        self.convert_target = inner.get(plan.target, plan.target)
        # A request line the direct path takes: what convert gives, without its
        # lookups and report (None: this line goes through line()).
        self.direct: Callable[[bytes], tuple[bytes, list[Loss]] | None] | None = None
        if plan.kind == "request" and self.via_convert:
            self.direct = direct(
                get(plan.source).NAME, get(plan.target).NAME, plan.model, plan.max_tokens
            )

    def line(self, data: bytes, losses: list[Loss], found: list[Any]) -> bytes:
        kind = self.plan.kind
        if kind == "batch":
            entry = _batch.read(self.plan.source, data)
            body = entry.body
            if body is not None:
                part = "request" if entry.part == "request" else "response"
                body = self.body(body, part, losses, found)
            return _batch.write(self.plan.target, entry, body, losses, found)
        return self.body(data, "request" if kind != "response" else "response", losses, found)

    def body(self, data: bytes, part: str, losses: list[Loss], found: list[Any]) -> bytes:
        plan = self.plan
        if not self.via_convert:
            if part == "request":
                request = self.source.read_request(data, losses)
                request = fill(request, plan.model, plan.max_tokens)
                return self.target.write_request(request, losses)
            return self.target.write_response(self.source.read_response(data), losses)
        if self.batched and plan.source == "bedrock" and part == "request":
            data = unwrap(data)
        out, report = convert(
            data,
            source=self.convert_source,
            target=self.convert_target,
            kind="request" if part == "request" else "response",
            model=None if self.batched and plan.target == "bedrock" else plan.model,
            max_tokens=plan.max_tokens,
        )
        losses.extend(report.losses)
        # The target's preflight findings, where the report carries them.
        found.extend(getattr(report, "problems", None) or getattr(report, "preflight", None) or ())
        if self.batched and plan.target == "bedrock" and part == "request":
            out, had_model = wrap(out)
            if had_model:
                losses.append(Loss("$.model", BEDROCK_NO_MODEL))
        return out


def convert_lines(
    lines: Iterable[bytes | str],
    *,
    source: str,
    target: str,
    kind: Kind | None = None,
    model: str | None = None,
    max_tokens: int | None = None,
    strict: bool = False,
    include_content: bool = False,
    first_line: int = 1,
) -> BulkResult:
    """Convert JSON records, one per line, from one family to another.

    The pure function under every bulk engine: no I/O, every line accounted
    for. A line that cannot be converted is reported by line, JSON path and
    rule and the run goes on (with ``strict``, it stops there).

    Parameters
    ----------
    lines : iterable of bytes or str
        One JSON record per line; blank lines are counted and passed over.
    source, target : str
        A provider (``"openai"``, ``"anthropic"``, ``"gemini"``, ``"ollama"``,
        ``"openai-responses"``, ``"bedrock"`` and their aliases), ``"chatcodec"``
        (canonical JSON) or ``"sharegpt"``. A Bedrock batch record holds
        Claude's own body (Anthropic Messages), as batch inference takes it.
    kind : {"request", "response", "transcript", "batch", "sharegpt"}, optional
        What each record is; told from the first record when left out.
    model, max_tokens : optional
        For requests that do not carry them, when the target needs them.
    strict : bool, default False
        Stop at the first line that fails.
    include_content : bool, default False
        Put the failing line itself in its problems (content is private:
        off by default).
    first_line : int, default 1
        The number of the first line, for a chunk of a longer input.

    Returns
    -------
    BulkResult
        The converted records in input order, the problems, and the counts.

    Raises
    ------
    ValidationError
        When a name is no family's, the kind does not fit them, or the kind
        cannot be told from the first record (the message says why).

    Examples
    --------
    >>> result = convert_lines(
    ...     ['{"messages":[{"role":"user","content":"Hi"}]}', ""],
    ...     source="openai", target="anthropic", max_tokens=256,
    ... )
    >>> result.records, result.kind, result.converted, result.blank
    ([b'{"max_tokens":256,"messages":[{"role":"user","content":"Hi"}]}'], 'request', 1, 1)
    """
    source, target = normalize(source), normalize(target)  # checked before any line
    result = BulkResult()
    converter: _Converter | None = None
    options = {
        "model": model,
        "max_tokens": max_tokens,
        "strict": strict,
        "include_content": include_content,
    }
    if kind is not None:
        converter = _Converter(Plan.make(source, target, kind, **options))
        result.kind = kind
    stream = _lines(lines)
    number = first_line - 1
    for number, data in enumerate(stream, first_line):
        if not data or data.isspace():
            result.blank += 1
            continue
        if converter is None:
            try:
                found_kind, _why = detect(data)
            except ChatCodecError as error:
                raise ValidationError(
                    f"line {number}: {problem_of(error, '$').rule}", "$"
                ) from None
            converter = _Converter(Plan.make(source, target, found_kind, **options))
            result.kind = found_kind
        if not _one(converter, data, number, result) and strict:
            result.unread = sum(1 for _rest in stream)
            number += result.unread
            break
    result.lines = number - first_line + 1
    return result


def _one(converter: _Converter, data: bytes, number: int, result: BulkResult) -> bool:
    if converter.direct is not None:
        done = converter.direct(data)
        if done is not None:
            result.records.append(done[0])
            if done[1]:
                _lost(done[1], number, result)
            else:
                result.converted += 1
            return True
    losses: list[Loss] = []
    found: list[Any] = []
    content = None
    if converter.plan.include_content:
        content = data.decode("utf-8", "replace").rstrip("\r\n")
    try:
        out = converter.line(data, losses, found)
    except ChatCodecError as error:
        problem = problem_of(error, "$")
        result.failed += 1
        result.problems.append(
            LineProblem(number, problem.path, problem.rule, "error", "convert", content)
        )
        return False
    except (ValueError, TypeError, KeyError, RecursionError, msgspec.MsgspecError) as error:
        # A record shaped in a way no rule foresaw; the message may quote it.
        result.failed += 1
        rule = f"could not be read ({type(error).__name__})"
        result.problems.append(LineProblem(number, "$", rule, "error", "convert", content))
        return False
    result.records.append(out)
    if losses:
        _lost(losses, number, result)
    else:
        result.converted += 1
    refused = False
    for problem in found:
        severity: Severity = "error"
        if getattr(problem, "severity", "error") != "error":
            severity = "warning"
        refused = refused or severity == "error"
        path, rule = getattr(problem, "path", "$"), getattr(problem, "rule", str(problem))
        result.problems.append(LineProblem(number, path, rule, severity, "preflight"))
    result.preflight += refused
    return True


def _lost(losses: list[Loss], number: int, result: BulkResult) -> None:
    result.lossy += 1
    for loss in losses:
        result.losses[loss.reason] = result.losses.get(loss.reason, 0) + 1
        result.problems.append(LineProblem(number, loss.path, loss.reason, "warning", "loss"))
