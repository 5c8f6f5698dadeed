"""OpenAI Chat Completions wire -> canonical: assistant messages and responses.

An assistant message spreads what the canonical form keeps in one tuple of
parts over several keys: ``content`` (a string, or Mistral's list of typed
parts), ``refusal``, and a dialect's reasoning (``reasoning_content``,
``reasoning``, OpenRouter's ``reasoning_details``). The parts are gathered in
that order (reasoning, content, refusal), and a hint says how ``content`` was
spelled so the encoder can spread them back.
"""

from __future__ import annotations

from typing import Any, TypeGuard, TypeVar

import msgspec
from msgspec import Raw

from ..._content import AssistantPart, ReasoningPart, RefusalPart, TextPart
from ..._errors import ProviderError, ValidationError
from ..._exchange import Choice, Response
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage
from ..._tools import InvalidToolCall, ToolCall, parse_tool_call
from ..._usage import FinishReason, Usage
from .._wire import MAX_BODY, check_size, derive_id, expect_dict, expect_list, json_body
from ._cite import take_annotations
from ._common import (
    ABSENT,
    NAME,
    encode_json,
    extras,
    keep_or_fail,
    normalize_finish,
    opaque,
    opt_str,
    rest,
)
from ._dialect import BY_FORMAT, FORMATS
from ._fast import fast_response

__all__ = ["TYPE_TEXT", "assistant", "decode_response", "general_response"]

TYPE_TEXT = frozenset({"type", "text"})
_ASSISTANT = frozenset(
    {
        "role",
        "content",
        "tool_calls",
        "refusal",
        "reasoning_content",
        "reasoning",
        "reasoning_details",
        "function_call",
    }
)
_THINKING = frozenset({"type", "thinking"})
_CALL = frozenset({"id", "type", "function"})
_FUNCTION_CALL = frozenset({"name", "arguments"})
_RESPONSE = frozenset({"id", "model", "choices", "usage"})
_CHOICE = frozenset({"index", "message", "finish_reason"})
_USAGE = frozenset(
    {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "prompt_tokens_details",
        "completion_tokens_details",
    }
)
# OpenRouter's reasoning_details: the key of each kind's text, and its known keys.
_DETAILS = FrozenMap(
    {
        kind: (key, frozenset({"type", key, "signature"}))
        for kind, key in (
            ("reasoning.text", "text"),
            ("reasoning.summary", "summary"),
            ("reasoning.encrypted", "data"),
        )
    }
)


# -- assistant messages ---------------------------------------------------------


def assistant(m: dict[str, Any], path: str, index: int) -> AssistantMessage:
    """Read an assistant message (of a request's history, or of a choice)."""
    own: dict[str, Any] = rest(m, _ASSISTANT) or {}
    role = m.get("role", ABSENT)
    if role is ABSENT:
        own["~role"] = None
    elif role != "assistant":
        own["role"] = role

    reasoning = _reasoning(m, own)
    signed: dict[str, tuple[str, int, Any]] = {}
    if reasoning and own.get("~reasoning") == "reasoning_details":
        reasoning = _call_signatures(reasoning, m.get("tool_calls"), signed)
        reasoning = _responses_items(reasoning)
    content: Any = m.get("content", ABSENT)
    refusal = m.get("refusal", ABSENT)
    if type(refusal) is not str and refusal is not ABSENT:
        own["refusal"] = refusal

    result: str | tuple[AssistantPart, ...] | None
    if type(content) is list:
        own["~content"] = "parts"
        parts = [_assistant_part(p, f"{path}.content[{j}]") for j, p in enumerate(content)]
        result = (*reasoning, *parts)
    elif type(content) is str:
        cited = take_annotations(own) if "annotations" in own else None
        if reasoning or type(refusal) is str or cited:
            own["~content"] = "str"
            result = (*reasoning, TextPart(content, cited or ()))
        else:
            result = content
    elif content is None or content is ABSENT:
        if content is None:
            own["content"] = None
        result = tuple(reasoning) if reasoning or type(refusal) is str else None
    else:
        raise ValidationError("must be a string, an array or null", f"{path}.content")
    if type(refusal) is str:
        result = (*(result or ()), RefusalPart(refusal))

    valid: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    calls = m.get("tool_calls", ABSENT)
    if type(calls) is list:
        at = _calls(calls, path, index, valid, invalid)
        if signed:
            valid = [_signed(call, signed) for call in valid]
            invalid = [_signed(call, signed) for call in invalid]
        if at:
            own["~invalid_at"] = at
        elif not calls:
            own["tool_calls"] = calls
    elif calls is not ABSENT:
        keep_or_fail(calls, "tool_calls", f"{path}.tool_calls", own, "must be an array")

    if "function_call" in m:
        fc = m["function_call"]
        if (
            not valid
            and not invalid
            and type(fc) is dict
            and type(fc.get("name")) is str
            and fc["name"]
            and type(fc.get("arguments")) is str
        ):
            call_id = derive_id("call_", index, 0, fc["name"], fc["arguments"])
            call = parse_tool_call(call_id, fc["name"], fc["arguments"])
            extra = rest(fc, _FUNCTION_CALL)
            if extra:
                call = msgspec.structs.replace(call, extras={NAME: {"~function": extra}})
            (valid if type(call) is ToolCall else invalid).append(call)  # type: ignore[arg-type]
            own["~function_call"] = 1
        else:
            own["function_call"] = fc

    if result is None and not valid and not invalid:
        result = ()
    return AssistantMessage(result, tuple(valid), tuple(invalid), extras=extras(own))


def _reasoning(m: dict[str, Any], own: dict[str, Any]) -> list[AssistantPart]:
    details = m.get("reasoning_details", ABSENT)
    parts: list[AssistantPart] = []
    if details is not ABSENT:
        mapped = _details(details) if type(details) is list and details else None
        if mapped is None:
            own["reasoning_details"] = details
        else:
            parts = mapped
            own["~reasoning"] = "reasoning_details"
    text = "".join(p.text for p in parts if isinstance(p, ReasoningPart))
    for key in ("reasoning_content", "reasoning"):
        if key not in m:
            continue
        value = m[key]
        if type(value) is str and details is ABSENT and not parts:
            parts.append(ReasoningPart(value))
            own["~reasoning"] = key
        elif type(value) is str and parts and "~dup" not in own and value == text and value:
            own["~dup"] = key
        else:
            own[key] = value
    return parts


def _call_signatures(
    parts: list[AssistantPart], calls: Any, signed: dict[str, tuple[str, int, Any]]
) -> list[AssistantPart]:
    """``parts`` without the entries that are a Gemini call's thought signature.

    OpenRouter carries the signature Gemini made a function call with as a
    ``reasoning.encrypted`` entry of ``format`` ``google-gemini-v1`` whose
    ``id`` is the call's. Each one found goes to ``signed`` (by call id: the
    signature, the entry's place in the list, its ``index``); the call gets it
    where Gemini's codec keeps one.
    """
    if type(calls) is not list:
        return parts
    ids = {
        call["id"]
        for call in calls
        if type(call) is dict and type(call.get("id")) is str and "extra_content" not in call
    }
    kept: list[AssistantPart] = []
    for k, part in enumerate(parts):
        own = (part.extras or {}).get(NAME) if type(part) is ReasoningPart else None
        if (
            type(part) is ReasoningPart
            and part.provider == "gemini"
            and part.redacted is not None
            and not part.text
            and type(own) is dict
            and own.get("~detail") == "reasoning.encrypted"
            and own.get("~format") == FORMATS["gemini"]
            and own.keys() <= _CALL_SIGNATURE
            and type(own.get("id")) is str
            and own["id"] in ids
            and own["id"] not in signed
        ):
            signed[own["id"]] = (part.redacted, k, own.get("~index"))
        else:
            kept.append(part)
    return kept


_CALL_SIGNATURE = frozenset(("~detail", "~format", "~index", "id"))
_AnyCall = TypeVar("_AnyCall", ToolCall, InvalidToolCall)
_SUMMARY = frozenset(("~detail", "~format", "~index"))
_RESPONSES = FORMATS["openai-responses"]


def _responses_items(parts: list[AssistantPart]) -> list[AssistantPart]:
    """``parts`` with each Responses reasoning item OpenRouter split in two made one again.

    OpenRouter writes a Responses reasoning item as a ``reasoning.summary`` entry
    and a ``reasoning.encrypted`` entry (the item's ``id`` and its
    ``encrypted_content``), both of format ``openai-responses-v1``: read back as
    the one part the Responses codec reads from the item (its summary, its
    encrypted content as the signature, its id), and written back as the two.
    """
    out: list[AssistantPart] = []
    k = 0
    while k < len(parts):
        part = parts[k]
        after = parts[k + 1] if k + 1 < len(parts) else None
        if _entry(part, "reasoning.encrypted", _CALL_SIGNATURE):
            out.append(_item(None, part))
        elif _entry(part, "reasoning.summary", _SUMMARY) and _entry(
            after, "reasoning.encrypted", _CALL_SIGNATURE
        ):
            out.append(_item(part, after))
            k += 1
        else:
            out.append(part)
        k += 1
    return out


def _entry(part: AssistantPart | None, kind: str, keys: frozenset[str]) -> TypeGuard[ReasoningPart]:
    """Whether ``part`` was read from a Responses entry of ``kind`` with only ``keys``."""
    if type(part) is not ReasoningPart or part.redacted is not None:
        return False
    if kind == "reasoning.summary" and part.signature is not None:
        return False  # a summary that says a signature of its own: kept as it came
    own = (part.extras or {}).get(NAME)
    return (
        type(own) is dict
        and own.get("~detail") == kind
        and own.get("~format") == _RESPONSES
        and own.keys() <= keys
        and (kind == "reasoning.summary" or type(own.get("id", "")) is str)
    )


def _item(summary: ReasoningPart | None, encrypted: ReasoningPart) -> ReasoningPart:
    """One Responses reasoning item from OpenRouter's entries (see _responses_items)."""
    own = (encrypted.extras or {})[NAME]
    # Whether a summary entry came, and each entry's index (None: it had none).
    said = (summary.extras or {})[NAME] if summary is not None else {}
    hint = {"~item": [summary is not None, said.get("~index"), own.get("~index")]}
    theirs = {"id": own["id"]} if "id" in own else None
    extras: dict[str, Any] = {NAME: hint}
    if theirs:
        extras["openai-responses"] = theirs
    return ReasoningPart(
        summary.text if summary is not None else "",
        encrypted.signature,
        provider="openai-responses",
        extras=extras,
    )


def _signed(call: _AnyCall, signed: dict[str, tuple[str, int, Any]]) -> _AnyCall:
    """``call`` with the thought signature OpenRouter's entries gave it, if any."""
    found = signed.get(call.id) if call.id is not None else None
    if found is None:
        return call
    signature, at, index = found
    extras = dict(call.extras or {})
    own = dict(extras.get(NAME) or {})
    own["~detail_at"] = at
    if index is not None:
        own["~index"] = index
    extras[NAME] = own
    extras["gemini"] = {"thoughtSignature": signature}
    return msgspec.structs.replace(call, extras=extras)


def _details(items: list[Any]) -> list[AssistantPart] | None:
    parts: list[AssistantPart] = []
    for item in items:
        if type(item) is not dict:
            return None
        kind = item.get("type")
        spec = _DETAILS.get(kind) if type(kind) is str else None
        if spec is None:
            return None
        key, known = spec
        value = item.get(key)
        signature = item.get("signature")
        if type(value) is not str or (signature is not None and type(signature) is not str):
            return None
        # The entry's type, a format that names a family and its index are its
        # wire form (hints: written back here, no loss elsewhere); any other
        # key is kept as sent.
        own: dict[str, Any] = {"~detail": kind}
        others = rest(item, known)
        fmt = item.get("format")
        if others:
            if type(fmt) is str and fmt in BY_FORMAT:
                own["~format"] = others.pop("format")
            if type(others.get("index")) is int:
                own["~index"] = others.pop("index")
            own.update(others)
        if signature is None and "signature" in item:
            own["signature"] = None
        # The format names the family that made the signature or the data:
        # it is theirs, replayed to that family (see _dialect).
        made_by = BY_FORMAT.get(fmt, NAME) if type(fmt) is str else NAME
        if key == "data" and made_by == "openai-responses":
            # A Responses item's encrypted_content, as that codec holds it.
            part = ReasoningPart(signature=value, provider=made_by, extras={NAME: own})
        elif key == "data":
            part = ReasoningPart(redacted=value, provider=made_by, extras={NAME: own})
        else:
            part = ReasoningPart(
                value,
                signature,
                provider=made_by if signature is not None else None,
                extras={NAME: own},
            )
        parts.append(part)
    return parts


def _assistant_part(value: Any, path: str) -> AssistantPart:
    p = expect_dict(value, path)
    kind = p.get("type")
    if kind == "text" and type(p.get("text")) is str:
        return TextPart(p["text"], extras=extras(rest(p, TYPE_TEXT)))
    if kind == "refusal" and type(p.get("refusal")) is str:
        own = rest(p, frozenset({"type", "refusal"})) or {}
        own["~in"] = "content"
        return RefusalPart(p["refusal"], extras={NAME: own})
    if kind == "thinking":
        chunks = p.get("thinking")
        if type(chunks) is list and chunks and all(_is_text(chunk) for chunk in chunks):
            own = rest(p, _THINKING) or {}
            own["~in"] = "content"
            if len(chunks) > 1:
                own["~chunks"] = [len(chunk["text"]) for chunk in chunks]
            return ReasoningPart("".join(chunk["text"] for chunk in chunks), extras={NAME: own})
    return opaque(p)


def _is_text(chunk: Any) -> bool:
    return (
        type(chunk) is dict
        and chunk.keys() == TYPE_TEXT
        and chunk["type"] == "text"
        and type(chunk["text"]) is str
    )


def _calls(
    items: list[Any],
    path: str,
    index: int,
    valid: list[ToolCall],
    invalid: list[InvalidToolCall],
) -> list[int] | None:
    at: list[int] = []
    for j, item in enumerate(items):
        call = _call(expect_dict(item, f"{path}.tool_calls[{j}]"), index, j)
        if type(call) is ToolCall:
            valid.append(call)
        else:
            invalid.append(call)  # type: ignore[arg-type]
            at.append(j)
    # Invalid calls are written after the valid ones unless told where they were.
    if at and at != list(range(len(valid), len(items))):
        return at
    return None


def _call(c: dict[str, Any], index: int, j: int) -> ToolCall | InvalidToolCall:
    own = rest(c, _CALL) or {}
    kind = c.get("type", ABSENT)
    if kind is ABSENT:
        own["~type"] = None
    elif kind != "function":
        own["type"] = kind
    function = c.get("function")
    if type(function) is not dict:
        raise ValidationError("must be an object", f"$.tool_calls[{j}].function")
    inner = rest(function, _FUNCTION_CALL) or {}
    name = function.get("name")
    if type(name) is not str or not name:
        if "name" in function:
            inner["name"] = name
        name = ""
    arguments = function.get("arguments", ABSENT)
    if type(arguments) is not str:
        if arguments is ABSENT or arguments is None:
            own["~arguments"] = "absent"
            if arguments is None:
                inner["arguments"] = None
            arguments = "{}"
        elif type(arguments) is dict:
            own["~arguments"] = "object"
            arguments = encode_json(arguments).decode()
        else:
            inner["arguments"] = arguments
            own["~arguments"] = "absent"
            arguments = "{}"
    call_id = c.get("id")
    if type(call_id) is not str or not call_id:
        if "id" in c:
            own["id"] = call_id
        own["~id"] = "derived"
        call_id = derive_id("call_", index, j, name, arguments)
    if inner:
        own["~function"] = inner
    signature = _thought_signature(own["extra_content"]) if "extra_content" in own else None
    if signature is not None and own["extra_content"] == {
        "google": {"thought_signature": signature}
    }:
        # Nothing but the signature: the encoder writes it back from Gemini's
        # key (a hint here, so that no family reports it lost).
        del own["extra_content"]
        own["~extra_content"] = 1
    found: dict[str, Any] | None = {NAME: own} if own else None
    if signature is not None:
        # Gemini's OpenAI-compatible endpoint: the call's thought signature,
        # also where Gemini's own codec keeps it (the call goes back as read).
        found = {**(found or {}), "gemini": {"thoughtSignature": signature}}
    return _parse(call_id, name, arguments, found)


def _thought_signature(extra: Any) -> str | None:
    """The signature of ``extra_content: {"google": {"thought_signature": ...}}``, or None."""
    if type(extra) is not dict:
        return None
    google = extra.get("google")
    if type(google) is not dict:
        return None
    signature = google.get("thought_signature")
    return signature if type(signature) is str else None


_raw = msgspec.json.Decoder(Raw)


def _parse(
    call_id: str, name: str, arguments: str, kept: dict[str, Any] | None
) -> ToolCall | InvalidToolCall:
    """``parse_tool_call``, with one scan of the usual well-formed object."""
    if name and arguments[:1] == "{":
        try:
            raw = _raw.decode(arguments.encode())
        except (msgspec.DecodeError, UnicodeError, RecursionError):
            pass  # parse_tool_call says why
        else:
            return ToolCall(call_id, name, raw, extras=kept)
    call = parse_tool_call(call_id, name, arguments)
    return msgspec.structs.replace(call, extras=kept) if kept else call


# -- responses ------------------------------------------------------------------


def decode_response(body: bytes | str, *, max_bytes: int = MAX_BODY) -> Response:
    """Read an OpenAI Chat Completions response body.

    Parameters
    ----------
    body : bytes or str
        The JSON body of a (non-streamed) chat completion, from OpenAI or a
        dialect.
    max_bytes : int, default 64 MiB
        The largest body read; a larger one raises ``DecodeError`` before it
        is parsed.

    Returns
    -------
    Response
        One :class:`~chatcodec.Choice` per choice; ``usage`` with cached and
        reasoning tokens; everything else in ``extras["openai"]``.

    Raises
    ------
    ProviderError
        If the body is an error body (``{"error": {...}}``).
    DecodeError, ValidationError
        If the body is not JSON, or a field has the wrong type.

    Examples
    --------
    >>> from chatcodec.providers import openai
    >>> response = openai.decode_response(
    ...     b'{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o",'
    ...     b'"choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},'
    ...     b'"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,'
    ...     b'"total_tokens":12}}'
    ... )
    >>> response.message.text, response.finish_reason, response.usage.total
    ('Hello!', <FinishReason.STOP: 'stop'>, 12)
    """
    check_size(body, max_bytes)
    response = fast_response(body)
    if response is not None:
        return response
    return general_response(body)


def general_response(body: bytes | str) -> Response:
    """:func:`decode_response` without the fast path: any shape, key by key."""
    obj = json_body(body)
    if "error" in obj and "choices" not in obj and obj["error"] is not None:
        raise _provider_error(obj)
    if obj.get("object") == "error" and "choices" not in obj:
        # Mistral's and vLLM's flat error body: {"object": "error", "message", "type",
        # "param", "code"} (OpenAI, Azure, DeepSeek, Groq and OpenRouter nest it in "error").
        raise _provider_error({"error": obj}, obj)
    own: dict[str, Any] = rest(obj, _RESPONSE) or {}
    if "object" not in obj:
        own["~object"] = None  # absent: not written back
    choices: tuple[Choice, ...] = ()
    raw = obj.get("choices", ABSENT)
    if raw is ABSENT:
        own["~choices"] = None
    elif raw is None:
        own["choices"] = None
    else:
        items = expect_list(raw, "$.choices")
        choices = tuple(_choice(c, f"$.choices[{i}]") for i, c in enumerate(items))
    usage = None
    raw_usage = obj.get("usage", ABSENT)
    if type(raw_usage) is dict:
        usage = _usage(raw_usage)
    elif raw_usage is not ABSENT:
        keep_or_fail(raw_usage, "usage", "$.usage", own, "must be an object")
    return Response(
        choices,
        opt_str(obj, "id", "$.id", own),
        opt_str(obj, "model", "$.model", own),
        usage,
        extras=extras(own),
    )


def _provider_error(obj: dict[str, Any], body: dict[str, Any] | None = None) -> ProviderError:
    error = obj["error"]
    obj = body if body is not None else obj
    if type(error) is not dict:
        message = error if type(error) is str else None
        return ProviderError(NAME, message=message, body=obj)

    def text(key: str) -> str | None:
        value = error.get(key)
        return value if type(value) is str else None

    code = error.get("code")
    if type(code) is not str and type(code) is not int:
        code = None
    return ProviderError(
        NAME,
        type=text("type"),
        code=code,
        message=text("message"),
        param=text("param"),
        body=obj,
    )


def _choice(value: Any, path: str) -> Choice:
    c = expect_dict(value, path)
    own: dict[str, Any] = rest(c, _CHOICE) or {}
    index = c.get("index", ABSENT)
    if index is ABSENT:
        own["~index"] = None
        index = None
    elif type(index) is not int:
        own["index"] = index
        index = None
    message = None
    raw = c.get("message", ABSENT)
    if type(raw) is dict:
        message = assistant(raw, f"{path}.message", 0)
    elif raw is ABSENT:
        own["~message"] = None
    else:
        keep_or_fail(raw, "message", f"{path}.message", own, "must be an object")
    finish = c.get("finish_reason")
    if type(finish) is str:
        reason = normalize_finish(finish)
        if reason is FinishReason.OTHER or reason is FinishReason.ERROR:
            own["~finish"] = "raw"  # a dialect's own name, not in OpenAI's set
        return Choice(message, reason, finish, index, extras=extras(own))
    if "finish_reason" in c:
        own["finish_reason"] = finish
    return Choice(message, None, None, index, extras=extras(own))


def _usage(u: dict[str, Any]) -> Usage:
    own: dict[str, Any] = rest(u, _USAGE) or {}
    absent: list[str] = []
    counts: list[int | None] = []
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = u.get(key, ABSENT)
        if type(value) is int and value >= 0:
            counts.append(value)
            continue
        counts.append(None)
        if value is ABSENT:
            absent.append(key)
        else:
            own[key] = value
            absent.append(key)
    cached, written = _usage_details(
        u, "prompt_tokens_details", "cached_tokens", own, "cache_write_tokens"
    )
    reasoning, _ = _usage_details(u, "completion_tokens_details", "reasoning_tokens", own, None)
    if absent:
        own["~absent"] = absent
    return Usage(
        counts[0] or 0,
        counts[1] or 0,
        counts[2],
        cached,
        reasoning,
        written,
        extras=extras(own),
    )


def _usage_details(
    u: dict[str, Any], key: str, field: str, own: dict[str, Any], also: str | None
) -> tuple[int | None, int | None]:
    """The counts ``field`` and ``also`` of the details object ``key``.

    What is not a count goes back to ``own`` with the rest of the object.
    """
    details = u.get(key, ABSENT)
    if details is ABSENT:
        return None, None
    if type(details) is not dict:
        own[key] = details
        return None, None
    out: list[int | None] = []
    kept = details
    for name in (field, also):
        value = kept.get(name) if name is not None else None
        if type(value) is int and value >= 0:
            kept = {k: v for k, v in kept.items() if k != name}
            out.append(value)
        else:
            out.append(None)
    own[key] = kept
    return out[0], out[1]
