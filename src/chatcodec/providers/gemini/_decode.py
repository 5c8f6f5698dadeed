"""Gemini's wire to canonical: ``generateContent`` request and response bodies.

A ``model`` content becomes one assistant message: text and thought parts in
``content``, ``functionCall`` parts in ``tool_calls`` (with an ``~order`` hint
when they are not after the rest). A ``user`` content becomes one tool message
per ``functionResponse`` part, then one user message for the other parts.
Function calls usually have no id: each gets one derived from its place and
content, and the results that answer it by name get the same id.

The turns are read in :mod:`._decode_turns`, the request's other fields in
:mod:`._decode_fields`; this module reads the responses' candidates and usage.
"""

from __future__ import annotations

from typing import Any

from ..._errors import ProviderError, ValidationError
from ..._exchange import Choice, Request, Response
from ..._frozen import FrozenMap
from ..._messages import Message
from ..._usage import Usage
from .._wire import (
    MAX_BODY,
    check_size,
    expect_dict,
    expect_list,
    extras_for,
    json_body,
    leftover,
)
from ._common import NAME, finish_reason, snake_hint, split, table
from ._decode_fields import FieldDecoder
from ._decode_turns import _ABSENT, _CONTENT, TurnDecoder, _spelled
from ._fast import fast_response, usage_of
from ._fastreq import fast_request
from ._ground import KEY, read_grounding

__all__ = ["decode_request", "decode_response", "general_request", "response_from"]

_TOP = FrozenMap(
    table("contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "model")
)
_RESPONSE = FrozenMap(table("candidates", "usageMetadata", "modelVersion", "responseId"))
_CANDIDATE = FrozenMap(table("content", "finishReason", "index"))
_USAGE = FrozenMap(table(
    "promptTokenCount", "candidatesTokenCount", "totalTokenCount", "cachedContentTokenCount",
    "thoughtsTokenCount",
))  # fmt: skip


class _Decoder(TurnDecoder, FieldDecoder):
    """One body's decode: turns, request fields, and the responses' candidates and usage."""

    __slots__ = ()

    # -- responses --------------------------------------------------------

    def candidate(self, value: Any, index: int) -> Choice:
        path = f"$.candidates[{index}]"
        candidate = expect_dict(value, path)
        found, rest = split(candidate, _CANDIDATE, self.snakes)
        keep: dict[str, Any] = dict(rest) if rest else {}
        message = None
        content = found.get("content", _ABSENT)
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is list and parts:
            role = content.get("role", _ABSENT)
            hints = leftover(content, _CONTENT) or {}
            if role != "model":
                hints["~role"] = None if role is _ABSENT else role
            message = self.assistant(parts, f"{path}.content", index, hints)
        elif content is not _ABSENT:
            keep["content"] = content
        raw = found.get("finishReason")
        if raw is not None and type(raw) is not str and type(raw) is not int:
            raw = None
        if raw is None and "finishReason" in found:
            keep[_spelled(candidate, "finishReason")] = found["finishReason"]
        reason = None
        if raw is not None:
            calls = message is not None and bool(message.tool_calls or message.invalid_tool_calls)
            reason = finish_reason(raw, calls)
        number = found.get("index")
        if number is not None and type(number) is not int:
            keep["index"] = number
            number = None
        elif number is None and "index" in found:
            keep["index"] = None
        if KEY in keep and message is not None:
            grounded = read_grounding(message, [kind != "c" for kind in self.layout], keep)
            if grounded is not None:
                message = grounded
        return Choice(message, reason, raw, number, extras=extras_for(NAME, keep or None))

    def usage(self, value: Any) -> Usage:
        usage = expect_dict(value, "$.usageMetadata")
        found, rest = split(usage, _USAGE, self.snakes)
        keep: dict[str, Any] = dict(rest) if rest else {}
        counts: list[int | None] = []
        for name in _USAGE_ORDER:
            count = found.get(name)
            if count is not None and type(count) is not int:
                keep[_spelled(usage, name)] = count
                count = None
            elif count is None and name in found:
                keep[_spelled(usage, name)] = None
            counts.append(count)
        tool_use = keep.get("toolUsePromptTokenCount", keep.get("tool_use_prompt_token_count"))
        return usage_of(counts[0], counts[1], counts[2], counts[3], counts[4], tool_use, keep)


_USAGE_ORDER = (
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
)


def decode_request(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Request:
    """Read a Gemini ``generateContent`` request body.

    ``systemInstruction`` becomes system messages at the start; each
    ``functionResponse`` part becomes a tool message whose ``tool_call_id`` is
    the id of the call it answers (by ``id``, else by name in order); keys
    spelled in snake_case are read like their camelCase twins and written
    back the same way.

    Parameters
    ----------
    body : bytes or str
        The JSON body.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Raises
    ------
    DecodeError
        If the body is not JSON.
    ValidationError
        If a field has the wrong type; the error names its JSON path.

    Examples
    --------
    >>> from chatcodec.providers import gemini
    >>> body = (
    ...     b'{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},'
    ...     b'{"role":"model","parts":[{"functionCall":{"name":"get_weather",'
    ...     b'"args":{"city":"Paris"}}}]},{"role":"user","parts":[{"functionResponse":'
    ...     b'{"name":"get_weather","response":{"temp":21}}}]}]}'
    ... )
    >>> request = gemini.decode_request(body)
    >>> call = request.messages[1].tool_calls[0]
    >>> request.messages[2].tool_call_id == call.id, bytes(call.arguments)
    (True, b'{"city":"Paris"}')
    >>> gemini.encode_request(request) == body
    True
    """
    check_size(body, max_bytes)
    fast = fast_request(body)
    return fast if fast is not None else general_request(body)


def general_request(body: bytes | str) -> Request:
    """:func:`decode_request` without the fast path: any shape, key by key."""
    data = json_body(body)
    decoder = _Decoder()
    found, rest = split(data, _TOP, decoder.snakes)
    extras: dict[str, Any] = dict(rest) if rest else {}
    fields: dict[str, Any] = {}
    messages: list[Message] = []
    if "systemInstruction" in found:
        system = decoder.system(found["systemInstruction"])
        if system is None:
            extras["systemInstruction"] = found["systemInstruction"]
        else:
            messages.extend(system)
    if "contents" not in found:
        raise ValidationError("is required", "$.contents")
    messages.extend(decoder.contents(expect_list(found["contents"], "$.contents")))
    if "tools" in found:
        fields["tools"] = decoder.tools(found["tools"], extras)
    if "toolConfig" in found:
        fields["tool_choice"] = decoder.tool_config(found["toolConfig"], extras)
    if "generationConfig" in found:
        decoder.generation(found["generationConfig"], fields, extras)
    if "model" in found:
        model = found["model"]
        if type(model) is str:
            fields["model"] = model
            extras["~model"] = "body"
        else:
            extras["model"] = model
    extras.update(snake_hint(decoder.snakes))
    return Request(tuple(messages), extras=extras_for(NAME, extras or None), **fields)


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read a Gemini ``generateContent`` response body.

    One choice per candidate (``message`` is ``None`` for a candidate
    without parts); ``finishReason`` is normalized (``STOP`` with function
    calls is ``tool_calls``), names and proto numbers alike, and kept as sent
    in ``raw_finish_reason``.

    Parameters
    ----------
    body : bytes or str
        The JSON body.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Raises
    ------
    ProviderError
        If the body is an error body (``{"error": {"code", "message", "status"}}``).
    DecodeError
        If the body is not JSON.
    ValidationError
        If a field has the wrong type; the error names its JSON path.

    Examples
    --------
    >>> from chatcodec.providers import gemini
    >>> response = gemini.decode_response(
    ...     b'{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi!"}]},'
    ...     b'"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,'
    ...     b'"candidatesTokenCount":2,"totalTokenCount":5}}'
    ... )
    >>> response.message.text, response.finish_reason, response.usage.total
    ('Hi!', <FinishReason.STOP: 'stop'>, 5)
    """
    check_size(body, max_bytes)
    response = fast_response(body)
    if response is not None:
        return response
    return general_response(body)


def general_response(body: bytes | str) -> Response:
    """:func:`decode_response` without the fast path: any shape, key by key."""
    return response_from(json_body(body))


def response_from(
    data: dict[str, Any], cut: dict[tuple[int, int], tuple[str, str]] | None = None
) -> Response:
    """Read a response body already parsed to builtins.

    ``cut`` names the calls a stream left unfinished, by (candidate, part):
    they become invalid calls that keep their text and say why.
    """
    error = data.get("error")
    if type(error) is dict and "candidates" not in data:
        status, code, message = error.get("status"), error.get("code"), error.get("message")
        raise ProviderError(
            NAME,
            type=status if type(status) is str else None,
            code=code if type(code) is int or type(code) is str else None,
            message=message if type(message) is str else None,
            body=data,
        )
    decoder = _Decoder(cut)
    found, rest = split(data, _RESPONSE, decoder.snakes)
    extras: dict[str, Any] = dict(rest) if rest else {}
    choices: tuple[Choice, ...] = ()
    if "candidates" in found:
        candidates = expect_list(found["candidates"], "$.candidates")
        choices = tuple(decoder.candidate(item, k) for k, item in enumerate(candidates))
        if not choices:
            extras["~candidates"] = "empty"
    usage = decoder.usage(found["usageMetadata"]) if "usageMetadata" in found else None
    ids: list[str | None] = []
    for name in ("responseId", "modelVersion"):
        value = found.get(name)
        if value is not None and type(value) is not str:
            raise ValidationError("must be a string", f"$.{name}")
        if value is None and name in found:
            extras[_spelled(data, name)] = None
        ids.append(value)
    extras.update(snake_hint(decoder.snakes))
    return Response(
        choices, id=ids[0], model=ids[1], usage=usage, extras=extras_for(NAME, extras or None)
    )
