"""Responses API response bodies: wire <-> canonical.

A response is one answer: its ``output`` items become one assistant message
(see :mod:`._decode_items`), its ``status`` the finish reason (``completed``; an
``incomplete`` response by its ``incomplete_details.reason``; ``failed``,
whose ``error`` is kept), and its ``usage`` the canonical usage. A body that
is only an ``error`` object raises :class:`~chatcodec.ProviderError`.
"""

from __future__ import annotations

from typing import Any

from ..._depth import refuses_depth
from ..._errors import ProviderError
from ..._exchange import Choice, Response
from ..._loss import Loss
from ..._messages import AssistantMessage
from ..._usage import FinishReason, Usage
from .._finish import READ, reason_of, write
from .._wire import MAX_BODY, Encoding, check_size, encode_body, expect_list, fill, json_body
from ._common import (
    ABSENT,
    NAME,
    extras,
    finish_of,
    input_details,
    opt_str,
    output_details,
    rest,
)
from ._decode_items import read_items
from ._encode_items import write_message
from ._fast import fast_response

__all__ = ["decode_response", "encode_response", "read_response"]

_RESPONSE = frozenset({"id", "model", "output", "status", "usage"})
_USAGE = frozenset(
    {
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "input_tokens_details",
        "output_tokens_details",
    }
)
_COUNTS = ("input_tokens", "output_tokens")
_TOOL_CALL_ITEMS = frozenset({"function_call", "custom_tool_call"})


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read an OpenAI Responses API response body.

    Parameters
    ----------
    body : bytes or str
        The JSON body of a ``/v1/responses`` answer (or the ``response`` of a
        stream's last event).
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Response
        One choice: the ``output`` items as an assistant message, the
        normalized finish reason (``raw_finish_reason`` is the status, or the
        reason an incomplete response gives), id, model and usage. Every
        other key stays in ``extras["openai-responses"]``.

    Raises
    ------
    ProviderError
        If the body is an error object.
    DecodeError, ValidationError
        If the body is not JSON, or a field has the wrong type.

    Examples
    --------
    >>> from chatcodec import providers
    >>> codec = providers.get("openai-responses")
    >>> response = codec.decode_response(
    ...     b'{"id":"resp_1","object":"response","status":"incomplete",'
    ...     b'"incomplete_details":{"reason":"max_output_tokens"},"model":"gpt-5",'
    ...     b'"output":[{"type":"message","id":"msg_1","status":"incomplete",'
    ...     b'"role":"assistant","content":[{"type":"output_text","text":"Hel",'
    ...     b'"annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":2,'
    ...     b'"total_tokens":7}}'
    ... )
    >>> response.message.text, response.finish_reason, response.choices[0].raw_finish_reason
    ('Hel', <FinishReason.LENGTH: 'length'>, 'max_output_tokens')
    """
    check_size(body, max_bytes)
    # The usual answer decodes straight into typed Structs; any other body
    # (built-in tool calls, new keys, errors...) takes the general path.
    response = fast_response(body)
    return response if response is not None else read_response(json_body(body))


def read_response(obj: dict[str, Any]) -> Response:
    """:func:`decode_response` of a body already parsed."""
    error = obj.get("error")
    if type(error) is dict and "output" not in obj:
        raise ProviderError(
            NAME,
            type=_text(error.get("type")),
            code=_code(error.get("code")),
            message=_text(error.get("message")),
            param=_text(error.get("param")),
            body=obj,
        )
    own = rest(obj, _RESPONSE)
    response_id = opt_str(obj, "id", "$.id", own)
    model = opt_str(obj, "model", "$.model", own)
    output = obj.get("output", ABSENT)
    message: AssistantMessage | None = None
    calls = False
    if type(output) is list:
        messages = read_items(output, "$.output")
        if len(messages) == 1 and isinstance(messages[0], AssistantMessage):
            message = messages[0]
            calls = any(
                type(item) is dict and item.get("type") in _TOOL_CALL_ITEMS for item in output
            )
        elif messages:
            own["output"] = output  # items a reply does not hold (a user message...)
        if not output:
            own["~output"] = 1
    elif output is not ABSENT:
        expect_list(output, "$.output")
    status = obj.get("status", ABSENT)
    finish, raw = finish_of(status, obj.get("incomplete_details"))
    choice_own: dict[str, Any] = {}
    if finish is FinishReason.STOP and calls:
        finish = FinishReason.TOOL_CALLS
    # The status as read: the finish reason alone does not always name it.
    if status is ABSENT:
        choice_own["~nostatus"] = 1
    else:
        choice_own["~status"] = status
    usage = _usage(obj, own)
    choice = Choice(message, finish, raw, extras=extras(choice_own))
    return Response((choice,), response_id, model, usage, extras=extras(own))


def _text(value: Any) -> str | None:
    return value if type(value) is str else None


def _code(value: Any) -> str | int | None:
    return value if type(value) in (str, int) else None


def _usage(obj: dict[str, Any], own: dict[str, Any]) -> Usage | None:
    usage = obj.get("usage")
    if type(usage) is not dict:
        if "usage" in obj:
            own["usage"] = usage
        return None
    usage_own = rest(usage, _USAGE)
    counts: list[int] = []
    absent: list[str] = []
    for key in _COUNTS:
        value = usage.get(key, ABSENT)
        if type(value) is int and value >= 0:
            counts.append(value)
        else:
            counts.append(0)
            if value is ABSENT:
                absent.append(key)
            else:
                usage_own[key] = value
    if absent:
        usage_own["~absent"] = absent
    total = usage.get("total_tokens")
    if total is not None and (type(total) is not int or total < 0):
        usage_own["total_tokens"] = total
        total = None
    elif total is None and "total_tokens" in usage:
        usage_own["total_tokens"] = None
    cached, written = input_details(usage.get("input_tokens_details", ABSENT), usage_own)
    reasoning = output_details(usage.get("output_tokens_details", ABSENT), usage_own)
    return Usage(counts[0], counts[1], total, cached, reasoning, written, extras=extras(usage_own))


@refuses_depth
def encode_response(response: Response, *, losses: list[Loss] | None = None) -> bytes:
    """Write an OpenAI Responses API response body.

    Parameters
    ----------
    response : Response
        The canonical response (from any provider). The Responses API has one
        answer per response: other choices are reported as lost.
    losses : list of Loss, optional
        Where to report what the wire cannot carry.

    Returns
    -------
    bytes
        The JSON body.

    Examples
    --------
    >>> from chatcodec import Choice, FinishReason, Response, Usage, assistant
    >>> from chatcodec import providers
    >>> codec = providers.get("openai-responses")
    >>> body = codec.encode_response(
    ...     Response((Choice(assistant("Hi!"), FinishReason.STOP),), id="r1", usage=Usage(5, 2))
    ... )
    >>> codec.decode_response(body).message.text
    'Hi!'
    """
    enc = Encoding(NAME, losses)
    own = enc.own(response.extras, "$")
    out: dict[str, Any] = {}
    if response.id is not None:
        out["id"] = response.id
    # A response this family's decoder read has its status hint: nothing it lacked is added.
    first = response.choices[0].extras if response.choices else None
    mine = first.get(NAME) if first else None
    ours = type(mine) is dict and ("~status" in mine or "~nostatus" in mine)
    if "object" not in own and "~output" not in own and response.choices and not ours:
        out["object"] = "response"
    if response.model is not None:
        out["model"] = response.model
    if response.choices:
        choice = response.choices[0]
        choice_own = enc.own(choice.extras, "$.choices[0]")
        for i in range(1, len(response.choices)):
            enc.lose(f"$.choices[{i}]", f"{NAME} has one answer per response")
        if "~nostatus" not in choice_own:
            out["status"] = _status(choice, choice_own, out, own, enc)
        items: list[Any] = []
        if choice.message is not None:
            write_message(choice.message, "$.choices[0].message", enc, items, output=True)
        if items or "output" not in own:
            out["output"] = items
        fill(out, choice_own)
    if response.usage is not None:
        out["usage"] = _write_usage(response.usage, enc, ours)
    return encode_body(fill(out, own))


def _status(
    choice: Choice,
    choice_own: dict[str, Any],
    out: dict[str, Any],
    own: dict[str, Any],
    enc: Encoding,
) -> Any:
    """The status of the response: as read, else from the normalized finish reason."""
    if "~status" in choice_own:
        return choice_own["~status"]
    reason = choice.finish_reason
    if reason is None:
        return "in_progress"
    reason = reason_of(reason, "$.choices[0].finish_reason")
    raw = choice.raw_finish_reason
    meant = READ[NAME].get(raw) if type(raw) is str else None
    wire, lost = write(NAME, reason, raw, meant)
    if lost is not None:
        enc.lose("$.choices[0].finish_reason", lost)
    if wire in _STATUSES:
        return wire
    # An incomplete response's reason is one of two; with no equal it has none (read: other).
    if lost is None and "incomplete_details" not in own:
        out["incomplete_details"] = {"reason": wire}
    return "incomplete"


_STATUSES = frozenset(("completed", "failed", "cancelled"))


def _write_usage(usage: Usage, enc: Encoding, ours: bool) -> dict[str, Any]:
    own = enc.own(usage.extras, "$.usage")
    absent = own.get("~absent")
    absent = absent if type(absent) is list else ()
    out: dict[str, Any] = {}
    if "input_tokens" not in absent:
        out["input_tokens"] = usage.prompt_tokens
    if "output_tokens" not in absent:
        out["output_tokens"] = usage.completion_tokens
    if usage.total_tokens is not None:
        out["total_tokens"] = usage.total_tokens
    elif not absent and "total_tokens" not in own and not ours:
        out["total_tokens"] = usage.total  # a total another family's usage leaves out
    for key, counts in (
        (
            "input_tokens_details",
            (
                ("cached_tokens", usage.cached_tokens),
                ("cache_write_tokens", usage.cache_write_tokens),
            ),
        ),
        ("output_tokens_details", (("reasoning_tokens", usage.reasoning_tokens),)),
    ):
        others = own.get(key, ABSENT)
        written = {name: value for name, value in counts if value is not None}
        if written:
            out[key] = {**written, **(others if type(others) is dict else {})}
        elif others is not ABSENT:
            out[key] = others
    return fill(out, own)
