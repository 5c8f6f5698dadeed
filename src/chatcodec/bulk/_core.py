"""The one pure function of bulk conversion: records in, records and problems out.

Every engine (the command line, the process pool, Dask) calls
:func:`convert_lines` on a run of lines and writes what it returns: no I/O
happens here. A line is converted, converted with losses, or failed; blank
lines are counted apart, and a strict run counts what it left unread.
Provider to provider goes through :func:`chatcodec.convert`; ``chatcodec``
(canonical JSON), ``sharegpt`` and ``bedrock`` go through their adapters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from .._answer_tool import STRUCTURED_OUTPUT, StructuredOutput, answer_as_tool, answer_from_tool
from .._convert import fit_request
from .._errors import ChatCodecError, ValidationError
from .._exchange import Request
from .._frozen import FrozenMap
from .._lenient import problem_of
from .._loss import Loss
from .._problems import Problem, Severity
from .._validate import validate
from ..providers import Codec, get
from ..providers._direct import BATCH_STREAM, direct
from ..providers._model_fit import fit_model, restore_paths
from ..providers._options import ToolCallContent, request_options
from ..providers._placeholders import fill_response, missing
from ..providers._preflight import sent_request
from ..providers.openai import DIALECTS
from . import _batch
from ._detect import detect, mismatch
from ._families import BEDROCK_NO_MODEL, PROVIDERS, Family, fill, normalize, wrap
from ._families import family as family_of
from ._result import KINDS, BulkResult, Kind, LineProblem, Stage

__all__ = [
    "Plan",
    "convert_lines",
    "one_line",
    "order_problems",
    "record_problems",
    "repeats",
]


class Plan(msgspec.Struct, frozen=True):
    """A conversion's settings, checked: what every worker is given."""

    source: str
    target: str
    kind: Kind
    model: str | None = None
    max_tokens: int | None = None
    strict: bool = False
    include_content: bool = False
    keep_refused: bool = False
    tool_call_content: ToolCallContent = "omit"
    structured_output: StructuredOutput = "native"
    dialect: str = ""
    """The OpenAI Chat dialect written (``"deepseek"``...), when the target names one."""

    @classmethod
    def make(cls, source: str, target: str, kind: Kind, **options: Any) -> Plan:
        """Check the names, the kind and the options against each other."""
        named = target.lower()
        source, target = normalize(source), normalize(target)
        if target == "openai" and named in DIALECTS and named != "openai":
            options["dialect"] = named
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
        if kind == "batch":
            for name in (source, target):
                if name not in _batch.HAS_BATCH:
                    raise ValidationError(f"{name} has no batch file format", "$")
        if kind == "response" and target == "sharegpt":
            raise ValidationError("sharegpt holds conversations, not responses", "$")
        limit = options.get("max_tokens")
        if limit is not None and (type(limit) is not int or limit < 1):
            raise ValidationError("max_tokens must be a whole number of at least 1", "$")
        if options.get("model") == "":
            raise ValidationError("model must not be empty", "$")
        content = options.get("tool_call_content", "omit")
        if content != "omit" and kind == "response":
            raise ValidationError("tool_call_content is written in requests, not responses", "$")
        try:
            request_options(target, content)
        except ValidationError as error:
            raise ValidationError(f"tool_call_content {error.rule}", "$") from None
        if options.get("structured_output", "native") not in STRUCTURED_OUTPUT:
            raise ValidationError("structured_output must be 'native' or 'tool'", "$")
        return cls(source, target, kind, **options)


def _lines(lines: Iterable[bytes | str]) -> Iterator[bytes]:
    for line in lines:
        # A lone surrogate (text read with surrogateescape) stays as bytes
        # that are not UTF-8: the line fails to decode, and says so.
        yield line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line


def one_line(record: bytes) -> bytes:
    r"""A JSON record on one line.

    Raw JSON kept as sent (tool-call arguments, a tool result's JSON) may
    be pretty-printed. In valid JSON a raw line break can only be
    whitespace between tokens (inside a string it is written ``\\n``), so
    removing every CR and LF byte keeps the same JSON value on one line.
    """
    if b"\n" in record or b"\r" in record:
        return record.replace(b"\r", b"").replace(b"\n", b"")
    return record


NO_MESSAGES = "holds no message: nothing to convert"
NO_CHOICES = "holds no choice or output: nothing to convert"
STREAMED = BATCH_STREAM


class _Converter:
    """One line at a time, for one plan."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        # A Bedrock batch record holds Claude's own body (Anthropic Messages), not a
        # Converse one.
        self.batched = plan.kind == "batch"
        self.adapters: dict[str, Family] = {}
        self.target = family_of(
            plan.dialect or plan.target,
            batch=self.batched,
            tool_call_content=plan.tool_call_content,
        )
        self.target_codec = codec_of(plan.dialect or plan.target, self.batched)
        self.bedrock_out = self.batched and plan.target == "bedrock"
        self.ident: str | None = None  # the batch id of the line just converted
        # A request line the direct path takes: what convert gives, without its
        # lookups and report (None: this line goes through line()).
        self.direct: Callable[[bytes], tuple[bytes, list[Loss]] | None] | None = None
        self.answer_tool = plan.structured_output == "tool"
        if (
            plan.kind in ("request", "batch")
            and {plan.source, plan.target} <= PROVIDERS
            and not self.answer_tool
        ):
            codec = self.target_codec
            target = codec.NAME if codec is not None else plan.target
            # Not for an OpenAI Chat dialect's codec (NAME "openai", its own writing) or options.
            if plan.tool_call_content == "omit" and (codec is None or codec is get(target)):
                self.direct = direct(
                    get(plan.source).NAME, target, plan.model, plan.max_tokens, batch=self.batched
                )

    def adapter(self, name: str) -> Family:
        found = self.adapters.get(name)
        if found is None:
            found = self.adapters[name] = family_of(name, batch=self.batched)
        return found

    def line(self, data: bytes, losses: list[Loss], found: list[Problem]) -> bytes:
        plan = self.plan
        self.ident = None
        if plan.kind == "batch":
            entry = _batch.read(plan.source, data)
            self.ident = entry.id
            body = entry.body
            if body is not None:
                source = self.adapter(entry.family or plan.source)
                if entry.part == "request":
                    body = self.request(source, body, losses, found)
                else:
                    body = self.response(source, body, losses, found)
            return _batch.write(plan.target, entry, body, losses, found)
        source = self.adapter(plan.source)
        if plan.kind == "response":
            return self.response(source, data, losses, found)
        return self.request(source, data, losses, found)

    def request(
        self, source: Family, data: bytes, losses: list[Loss], found: list[Problem]
    ) -> bytes:
        plan = self.plan
        if self.batched and self.direct is not None and source is self.adapter(plan.source):
            done = self.direct(data)  # a "stream": true left out, as below
            if done is not None:
                out, lost = done
                if self.bedrock_out:
                    out, had_model = wrap(out)
                    if had_model:  # said where the general path says it: before the body's
                        at = 1 if lost and lost[0].reason == STREAMED else 0
                        lost.insert(at, Loss("$.model", BEDROCK_NO_MODEL))
                losses.extend(lost)
                return out
        request = source.read_request(data, losses)
        if not request.messages:
            raise ValidationError(_empty(NO_MESSAGES, data, "request", plan), "$.messages")
        given = request.model
        request = fill(request, plan.model, plan.max_tokens)
        if self.answer_tool:
            request, notes = answer_as_tool(request)
            found.extend(notes)
        if self.batched and request.stream:
            losses.append(Loss("$.stream", STREAMED))
            request = msgspec.structs.replace(request, stream=None)
        if self.target_codec is not None and source.name != self.target_codec.NAME:
            # What convert changes for another family: cache points, schemas.
            request = fit_request(request, self.target_codec.NAME, losses)
        moved = None
        if self.target_codec is not None and (
            source.name != self.target_codec.NAME or request.model != given
        ):
            # Written for another model: what its profile refuses is left out.
            request, moved = fit_model(request, self.target_codec.NAME, losses)
        start = len(losses)
        first = len(found)
        out = self.target.write_request(request, losses)
        if self.target_codec is not None:
            # The target's own rules, on the record as the target reads it: its
            # preflight and the ordering rules providers enforce (what
            # ``chatcodec validate`` checks). As convert does, the request sent
            # is told from the encoder's losses where the target can tell it.
            if self.bedrock_out:
                sent = self.target_codec.decode_request(_unwrapped(out))
            else:
                sent = sent_request(self.target_codec, request, out, losses[start:])
            found.extend(record_problems(self.target_codec, sent, bedrock=self.bedrock_out))
        else:
            found.extend(order_problems(request))
        if moved is not None:
            later = found[first:]
            restore_paths(moved, losses, start, later)
            found[first:] = later
        return out

    def response(
        self, source: Family, data: bytes, losses: list[Loss], found: list[Problem]
    ) -> bytes:
        response = source.read_response(data)
        name = "anthropic" if self.batched and source.name == "bedrock" else source.name
        if not response.choices and not answers(name, data):
            raise ValidationError(_empty(NO_CHOICES, data, "response", self.plan), "$")
        if self.answer_tool:
            response, dropped = answer_from_tool(response)
            losses.extend(dropped)
        out = self.target.write_response(response, losses)
        target = self.target_codec.NAME if self.target_codec is not None else None
        if target is not None and target != name:
            # What the target's clients require: placeholders where nothing is
            # said, and a refusal where the source lacks what cannot be made up.
            out = fill_response(target, out, losses)
            found.extend(Problem(path, rule) for path, rule in missing(target, out))
        return out


# The keys a response of each family answers with: a body with none of them
# (and so no choice) is no response of that family. A Gemini answer whose
# prompt was blocked has no candidate, but says why in promptFeedback.
_ANSWER_KEYS = FrozenMap(
    {
        "openai": ("choices",),
        "openai-responses": ("output", "status"),
        "anthropic": ("content",),
        "gemini": ("candidates", "promptFeedback"),
        "ollama": ("message", "done"),
        "bedrock": ("output", "stopReason"),
        "cohere": ("message", "finish_reason"),
    }
)


def answers(family: str, data: bytes) -> bool:
    """Whether a response body with no choice has a key its family answers with."""
    keys = _ANSWER_KEYS.get(family)
    if keys is None:
        return True  # chatcodec's own: a response with no choice is one
    try:
        found = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
    except (msgspec.MsgspecError, UnicodeError):
        return False
    return any(key in found for key in keys)


def codec_of(name: str, batched: bool) -> Codec | None:
    """The codec whose rules a target's records must pass (None: no provider's)."""
    if name not in PROVIDERS and name not in DIALECTS:
        return None
    return get("anthropic" if batched and name == "bedrock" else name)


def _unwrapped(body: bytes) -> bytes:
    values = msgspec.json.decode(body)
    values.pop("anthropic_version", None)
    return msgspec.json.encode(values)


def _empty(rule: str, data: bytes, kind: Kind, plan: Plan) -> str:
    why = mismatch(data, kind, plan.source)
    return f"{rule}; {why}" if why else rule


def order_problems(request: Request) -> list[Problem]:
    """The ordering rules providers enforce, on a request's messages, by request path."""
    return [
        Problem("$.messages" + p.path[1:], p.rule, p.severity)
        for p in validate(request.messages, policy="provider", collect=True)
    ]


def record_problems(codec: Codec, request: Request, *, bedrock: bool = False) -> list[Problem]:
    """Everything a provider's rules say of a request: ordering, then its preflight.

    ``bedrock``: a Claude body for Bedrock batch inference, which names no
    model (the job does).
    """
    found = order_problems(request)
    for problem in codec.check_request(request):
        if bedrock and problem.path == "$.model":
            continue
        found.append(problem)
    return found


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
    keep_refused: bool = False,
    first_line: int = 1,
    tool_call_content: ToolCallContent = "omit",
    structured_output: StructuredOutput = "native",
    dialect: str = "",
) -> BulkResult:
    """Convert JSON records, one per line, from one family to another.

    The pure function under every bulk engine: no I/O, every line accounted
    for. A line that cannot be converted is reported by line, JSON path and
    rule and the run goes on (with ``strict``, it stops there). So is a line
    whose converted record the target would refuse (its preflight, or the
    ordering rules providers enforce, as ``chatcodec validate`` checks): it
    is counted as ``refused`` and left out of the records, unless
    ``keep_refused``. Every record returned is one line of JSON.

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
    model : str, optional
        The target's model, for every request (it replaces the one a request
        carries: a model name rarely means anything to another provider).
    max_tokens : int, optional
        The output limit, for requests that carry none.
    strict : bool, default False
        Stop at the first line that fails or is refused.
    include_content : bool, default False
        Put the failing line itself in its problems (content is private:
        off by default).
    keep_refused : bool, default False
        Return the records the target would refuse as well (still counted
        as ``refused``, and as ``kept``).
    first_line : int, default 1
        The number of the first line, for a chunk of a longer input.
    tool_call_content : {"omit", "null", "empty"}, default "omit"
        Requests into OpenAI Chat only: what an assistant message that only
        calls tools sends as ``content`` (``"empty"``: ``""``, for servers
        that refuse a message without it), as for
        :func:`chatcodec.providers.openai.encode_request`.
    structured_output : {"native", "tool"}, default "native"
        ``"tool"``: a request's JSON ``response_format`` is sent as one tool
        the model must call, for a target model that has no structured
        output, and a response's call of that tool is read back as the
        answer's text (see :func:`chatcodec.answer_as_tool`); each request
        so changed carries a warning saying so.
    dialect : str, optional
        The OpenAI Chat dialect to write (``"deepseek"``...), as a ``target``
        naming that service gives; a :class:`Plan`'s own field, passed back.

    Returns
    -------
    BulkResult
        The converted records in input order, the problems, and the counts.

    Raises
    ------
    ValidationError
        When a name is no family's, the kind does not fit them, an option is
        out of range, the kind cannot be told from the first record, or the
        first record (of a whole input: ``first_line`` 1) is plainly of
        another kind or family than asked (the message says why).

    Examples
    --------
    >>> result = convert_lines(
    ...     ['{"messages":[{"role":"user","content":"Hi"}]}', ""],
    ...     source="openai", target="anthropic", model="claude-sonnet-4-5", max_tokens=256,
    ... )
    >>> result.records
    [b'{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Hi"}]}']
    >>> result.kind, result.converted, result.blank
    ('request', 1, 1)

    Without a model, Anthropic would refuse the record: it is counted, not returned.

    >>> result = convert_lines(
    ...     ['{"messages":[{"role":"user","content":"Hi"}]}'],
    ...     source="openai", target="anthropic", max_tokens=256,
    ... )
    >>> result.records, result.refused, [str(p) for p in result.problems]
    ([], 1, ['error: must be set: Anthropic requires it - at line 1, `$.model`'])
    """
    if dialect:
        target = dialect  # a plan's own fields, passed back (see Plan.dialect)
    named = target
    source, target = normalize(source), normalize(target)  # checked before any line
    result = BulkResult()
    converter: _Converter | None = None
    options = {
        "model": model,
        "max_tokens": max_tokens,
        "strict": strict,
        "include_content": include_content,
        "keep_refused": keep_refused,
        "tool_call_content": tool_call_content,
        "structured_output": structured_output,
    }
    if kind is not None:
        converter = _Converter(Plan.make(source, named, kind, **options))
        result.kind = kind
    stream = _lines(lines)
    number = first_line - 1
    ids: dict[int, int] = {}
    checked = first_line != 1  # a chunk of a longer input: its first line was checked
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
            converter = _Converter(Plan.make(source, named, found_kind, **options))
            result.kind = found_kind
        if not checked:
            checked = True
            why = mismatch(data, converter.plan.kind, source)
            if why is not None:
                raise ValidationError(f"line {number}: {why}", "$")
        if not _one(converter, data, number, result, ids) and strict:
            result.unread = sum(1 for _rest in stream)
            number += result.unread
            break
    result.lines = number - first_line + 1
    return result


DUPLICATE_ID = "repeats the id of line {line}: the provider refuses a batch with repeated ids"


def id_key(ident: str) -> int:
    """A batch id as 64 bits, the same in every process (``hash`` is not)."""
    return int.from_bytes(hashlib.blake2b(ident.encode(), digest_size=8).digest(), "big")


def _one(
    converter: _Converter, data: bytes, number: int, result: BulkResult, ids: dict[int, int]
) -> bool:
    if converter.direct is not None and not converter.batched:
        done = converter.direct(data)
        if done is not None:
            # The direct path takes only what the preflight and the ordering
            # rules pass (tests prove it equal to the general path).
            result.records.append(one_line(done[0]))
            if done[1]:
                result.lossy += 1
                _note(done[1], number, result)
            else:
                result.converted += 1
            return True
    losses: list[Loss] = []
    found: list[Problem] = []
    plan = converter.plan
    content = None
    if plan.include_content:
        content = data.decode("utf-8", "replace").rstrip("\r\n")
    try:
        out = converter.line(data, losses, found)
    except ChatCodecError as error:
        problem = problem_of(error, "$")
        return _failed(result, number, problem.path, problem.rule, content)
    except (ValueError, TypeError, KeyError, RecursionError, msgspec.MsgspecError) as error:
        # A record shaped in a way no rule foresaw; the message may quote it.
        return _failed(result, number, "$", f"could not be read ({type(error).__name__})", content)
    refused = False
    for problem in found:
        bad = problem.severity == "error"
        refused = refused or bad
        severity: Severity = "error" if bad else "warning"
        stage: Stage = "order" if problem.rule in _ORDER_RULES else "preflight"
        result.problems.append(LineProblem(number, problem.path, problem.rule, severity, stage))
        if bad:
            key = problem.rule if "[" in problem.path else f"{problem.rule} (at {problem.path})"
            result.refusals[key] = result.refusals.get(key, 0) + 1
    if converter.ident is not None:
        _batch_id(converter.ident, plan.target, number, result, ids)
    if refused:
        # Counted as refused alone (kept or not), never as converted.
        result.refused += 1
        if plan.keep_refused:
            result.kept += 1
            result.records.append(one_line(out))
        _note(losses, number, result)
        return False
    result.records.append(one_line(out))
    if losses:
        result.lossy += 1
        _note(losses, number, result)
    else:
        result.converted += 1
    return True


_ORDER_RULES = frozenset(
    (
        "every tool call must be answered before this message",
        "the first message after the instructions must not be an assistant message",
        "tool call is answered already",
        "tool message must answer a call of the preceding assistant message",
    )
)


def _batch_id(
    ident: str, target: str, number: int, result: BulkResult, ids: dict[int, int]
) -> None:
    """Note a converted batch line's id; report it when it repeats one of this call's."""
    key = id_key(ident)
    result.ids.append((number, key))
    first = ids.setdefault(key, number)
    if first != number:
        result.duplicates += 1
        path = _batch.ID_PATHS.get(target, "$.id")
        result.problems.append(
            LineProblem(number, path, DUPLICATE_ID.format(line=first), "error", "preflight")
        )


def _failed(result: BulkResult, number: int, path: str, rule: str, content: str | None) -> bool:
    result.failed += 1
    result.problems.append(LineProblem(number, path, rule, "error", "convert", content))
    return False


def _note(losses: list[Loss], number: int, result: BulkResult) -> None:
    for loss in losses:
        result.losses[loss.reason] = result.losses.get(loss.reason, 0) + 1
        result.problems.append(LineProblem(number, loss.path, loss.reason, "warning", "loss"))


def repeats(result: BulkResult, seen: dict[int, int], target: str) -> None:
    """Report the batch ids of a chunk that repeat an earlier chunk's.

    A chunk's repeats of its own ids it reported itself.
    """
    path = _batch.ID_PATHS.get(target, "$.id")
    earlier = [(line, seen[key]) for line, key in result.ids if key in seen]
    for line, first in earlier:
        rule = DUPLICATE_ID.format(line=first)
        result.problems.append(LineProblem(line, path, rule, "error", "preflight"))
    result.duplicates += len(earlier)
    for line, key in result.ids:
        seen.setdefault(key, line)
    result.ids = []
