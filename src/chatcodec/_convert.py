"""Conversion between provider wire formats, with a report of what was lost."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import msgspec

from ._answer_tool import STRUCTURED_OUTPUT, StructuredOutput, answer_as_tool, answer_from_tool
from ._depth import too_deep
from ._errors import LossError, ValidationError
from ._exchange import Request
from ._frozen import FrozenMap
from ._loss import Loss, LossReport
from ._problems import Problem
from .providers import Codec, get
from .providers._cache import carry_automatic_cache, trim_cache
from .providers._direct import Straight, paired
from .providers._model_fit import fit_model, restore_paths
from .providers._options import ToolCallContent, request_options
from .providers._placeholders import fill_response
from .providers._preflight import preflight
from .providers.gemini._subset import fit_request as fit_gemini

__all__ = ["convert"]

_codecs: dict[str, Codec] = {}  # get's answers, by the name asked: a lookup per call
# Each pair asked (by the names asked): its codecs, and its direct path for the
# target's own codec (None for a pair without one, or a dialect's codec).
_pairs: dict[tuple[str, str], tuple[Codec, Codec, Straight | None]] = {}
_BODY = (bytes, str)
_encode_json = msgspec.json.Encoder().encode
_NO_OPTIONS: Mapping[str, Any] = FrozenMap({})


# Each family whose schema fields take less than JSON Schema, and the step
# that cuts a request's schemas to them (reporting what it cuts).
FIT_SCHEMAS: Mapping[str, Callable[[Request, list[Loss]], Request]] = FrozenMap(
    {"gemini": fit_gemini}
)


def _codec(name: str) -> Codec:
    codec = _codecs.get(name)
    if codec is None:
        codec = get(name)  # raises for a name that is no codec's
        if len(_codecs) < 64:
            _codecs[name] = codec
    return codec


def _pair(source: str, target: str) -> tuple[Codec, Codec, Straight | None]:
    """The codecs of ``source`` and ``target``, and the pair's direct path (see ``_pairs``)."""
    found = _pairs.get((source, target))
    if found is None:
        reader, writer = _codec(source), _codec(target)  # raises for a name that is no codec's
        straight = None if writer is not _codec(writer.NAME) else paired(reader.NAME, writer.NAME)
        found = (reader, writer, straight)
        if len(_pairs) < 256:
            _pairs[(source, target)] = found
    return found


def convert(
    body: bytes | str | Mapping[str, Any],
    *,
    source: str,
    target: str,
    kind: Literal["request", "response"] = "request",
    strict: bool = False,
    model: str | None = None,
    max_tokens: int | None = None,
    check: bool = True,
    tool_call_content: ToolCallContent = "omit",
    structured_output: StructuredOutput = "native",
) -> tuple[bytes, LossReport]:
    """Convert a request or response body from one provider's format to another's.

    A tool's or answer's schema going to a family whose schema fields take
    less than JSON Schema (Gemini) is cut to what the field takes, each cut
    reported as a loss. Written into another family or for another model
    (``model``), a request leaves out what the target model's profile says it
    refuses outright: a reasoning setting for a model that does not think,
    an image for a model that takes none (each reported as a loss at its
    path). The profile's other rules (sampling values, a JSON schema format
    the model cannot take natively) are in the report's problems.

    Parameters
    ----------
    body : bytes, str or dict
        The source body, as sent or already parsed.
    source, target : str
        Provider names, as for :func:`chatcodec.providers.get`.
    kind : {"request", "response"}
        What the body is.
    strict : bool, default False
        Raise :class:`LossError` when anything would be lost.
    model : str, optional
        The target's model: it replaces the source's (a model name rarely
        means anything to another provider). Gemini takes the model in the
        URL, not the body.
    max_tokens : int, optional
        The output limit for a request that does not carry one (Anthropic
        requires it). A limit the request has wins.
    check : bool, default True
        Run the target's preflight (``check_request``) on the converted
        request as the target reads it, and put what it finds in the report's
        ``problems``. For OpenAI Chat and the Responses API that request is
        told from the canonical one and what the encoder left out; otherwise,
        and where the encoder reshaped the request, the output is decoded
        again (the same problems either way). Pass ``False`` where the output
        is checked elsewhere. The usual OpenAI Chat
        request (text, data-URL images, tool calls and results, function
        tools, the common parameters) goes to Anthropic, Gemini, the
        Responses API, Bedrock, Ollama and Cohere straight, and the usual
        Anthropic, Responses API, Gemini, Bedrock, Ollama and Cohere requests
        to all of those but their own family and to OpenAI Chat (a source's
        own built-in tools among them, left out and reported), without the
        canonical form or that decode: the same bytes and report.
    tool_call_content : {"omit", "null", "empty"}, default "omit"
        OpenAI Chat targets only: what an assistant message that only calls
        tools sends as ``content``, as for
        :func:`chatcodec.providers.openai.encode_request` (``"empty"``: ``""``
        for servers that refuse the others; ``"null"``: ``null``; ``"omit"``:
        no key). Another value, or another target with a value other than
        ``"omit"``, is refused.
    structured_output : {"native", "tool"}, default "native"
        How a request's JSON ``response_format`` is sent: in the target's
        own form (``"native"``; for a model whose profile says it has no
        JSON schema format, the report's problems say so and name
        ``"tool"``), or, for a model that has none, as one tool
        the model must call (``"tool"``, see :func:`chatcodec.answer_as_tool`;
        the report's problems say what changed). Give ``"tool"`` again when
        converting the response back: the tool's call becomes the answer's
        text (see :func:`chatcodec.answer_from_tool`).

    Returns
    -------
    bytes
        The target body.
    LossReport
        Every field or block the target could not carry, by path (in the
        canonical form) and reason, and what the target would refuse.
        Falsy when nothing was lost and nothing would be refused.

    Raises
    ------
    LossError
        With ``strict``, when anything would be lost.
    DecodeError, ValidationError, ProviderError
        When the source body cannot be read.
    DepthError
        When a body given as a dict nests too deep to write, or a schema
        past the limit (naming where).
    ValidationError
        When ``tool_call_content`` is not one of its values, or is set for a
        target other than OpenAI Chat; when ``structured_output`` is not one
        of its values; with ``"tool"``, when the request's schema cannot be a
        tool's (see :func:`chatcodec.answer_as_tool`).

    Examples
    --------
    >>> import chatcodec as cc
    >>> body = {"model": "gpt-4o", "messages": [{"role": "assistant", "content": "Hi"}]}
    >>> out, report = cc.convert(body, source="openai", target="anthropic",
    ...                          model="claude-sonnet-4-5", max_tokens=64)
    >>> out[:40], bool(report)
    (b'{"model":"claude-sonnet-4-5","max_tokens', False)
    >>> out, report = cc.convert(body, source="openai", target="gemini")
    >>> report.losses, [str(p) for p in report.problems]
    ((), ['error: the first turn must be a user turn - at `$.messages[0]`'])

    For a server that refuses an assistant message without ``content``:

    >>> calls = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
    ...     "function": {"name": "f", "arguments": "{}"}}]}
    >>> body = {"messages": [{"role": "user", "content": "Hi"}, calls]}
    >>> out, _ = cc.convert(body, source="openai", target="openai", tool_call_content="empty")
    >>> b'"role":"assistant","content":""' in out
    True

    For a model without structured output, the schema as a tool, both ways:

    >>> import json
    >>> body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Where?"}],
    ...     "response_format": {"type": "json_schema", "json_schema": {"name": "city",
    ...     "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}
    >>> out, report = cc.convert(body, source="openai", target="anthropic",
    ...     max_tokens=64, structured_output="tool")
    >>> b'"tool_choice":{"type":"tool","name":"json_answer"}' in out
    True
    >>> reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
    ...     "content": [{"type": "tool_use", "id": "toolu_1", "name": "json_answer",
    ...     "input": {"name": "Paris"}}], "stop_reason": "tool_use",
    ...     "usage": {"input_tokens": 9, "output_tokens": 5}}
    >>> out, report = cc.convert(reply, source="anthropic", target="openai",
    ...     kind="response", structured_output="tool")
    >>> choice = json.loads(out)["choices"][0]
    >>> choice["message"]["content"], choice["finish_reason"]
    ('{"name":"Paris"}', 'stop')
    """
    reader, writer, straight = _pair(source, target)
    options = request_options(writer.NAME, tool_call_content)
    if structured_output not in STRUCTURED_OUTPUT:
        raise ValidationError("must be 'native' or 'tool'", "structured_output")
    answer_tool = structured_output == "tool"
    if not isinstance(body, _BODY):
        try:
            body = _encode_json(body)
        except RecursionError:  # a value the caller built too deep to write
            error = too_deep(body)
            if error is None:
                raise
            raise error from None
    losses: list[Loss] = []
    problems: list[Problem] = []
    if kind == "request":
        # The usual request goes straight across (same bytes, same losses, no problems).
        # Not for an OpenAI Chat dialect's codec (NAME "openai", its own writing) or options.
        done = (
            None
            if answer_tool or options or straight is None
            else straight(body, model, max_tokens)
        )
        if done is None:
            out, problems = general_request(
                reader, writer, body, model, max_tokens, check, losses, options, answer_tool
            )
        else:
            out, losses = done
    elif kind == "response":
        response = reader.decode_response(body)
        if answer_tool:
            response, dropped = answer_from_tool(response)
            losses.extend(dropped)
        out = writer.encode_response(response, losses=losses)
        if writer.NAME != reader.NAME:
            # What the target's clients require and the source had none of.
            out = fill_response(writer.NAME, out, losses)
    else:
        raise ValueError('kind must be "request" or "response"')
    report = LossReport(tuple(losses), tuple(problems))
    if strict and losses:
        raise LossError(report.losses)
    return out, report


def fit_request(request: Request, target: str, losses: list[Loss]) -> Request:
    """``request``, from another family, made to fit what ``target`` takes; each change reported.

    Anthropic's automatic cache point goes on the last block that takes one,
    the cache points beyond the target's limit are left out (it would refuse
    the request), and each schema is cut to what the target's schema fields
    take. :func:`convert` and the bulk engines run it on every request they
    write into another family.
    """
    request = carry_automatic_cache(request, target, losses)
    request = trim_cache(request, target, losses)
    fit = FIT_SCHEMAS.get(target)
    if fit is not None:
        request = fit(request, losses)
    return request


def general_request(
    reader: Codec,
    writer: Codec,
    body: bytes | str,
    model: str | None,
    max_tokens: int | None,
    check: bool,
    losses: list[Loss],
    options: Mapping[str, Any] = _NO_OPTIONS,
    answer_tool: bool = False,
) -> tuple[bytes, list[Problem]]:
    """A request through the canonical form: the target body, and its preflight's problems.

    With ``answer_tool``, the request's JSON format goes as a tool (see
    :func:`chatcodec.answer_as_tool`), and what that changed leads the problems.
    """
    request = reader.decode_request(body)
    notes: list[Problem] = []
    if answer_tool:
        request, notes = answer_as_tool(request)
    fill: dict[str, object] = {}
    if model is not None and request.model != model:
        fill["model"] = model
    if max_tokens is not None and request.max_tokens is None:
        fill["max_tokens"] = max_tokens
    if fill:
        request = msgspec.structs.replace(request, **fill)
    moved = None
    if writer.NAME != reader.NAME:
        request = fit_request(request, writer.NAME, losses)
    if writer.NAME != reader.NAME or "model" in fill:
        # Written for another model: what its profile refuses is left out.
        request, moved = fit_model(request, writer.NAME, losses)
    start = len(losses)
    out = writer.encode_request(request, losses=losses, **options)
    problems = [*notes, *preflight(writer, request, out, losses[start:])] if check else notes
    if moved is not None:
        restore_paths(moved, losses, start, problems)
    return out, problems
