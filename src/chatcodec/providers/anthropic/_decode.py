"""Anthropic Messages wire -> canonical values.

Strategy: the body is parsed to builtins once (msgspec, in C); each block is
then mapped by its ``type`` with frozensets of known keys, and whatever has no
canonical field stays in the record's ``extras["anthropic"]``.

Where Anthropic's shape differs from the canonical one, a few hints (keys
starting with ``~``) let the encoder write the same wire again:

- ``~turn: "new"`` on a message: it starts a new wire turn although the
  message before it has the same wire role (consecutive user turns, or a
  ``system`` turn at the start of ``messages``).
- ``~order: "wire"`` on the first message of a user turn whose tool results
  do not all come first; ``~order: "ctci..."`` on an assistant message whose
  blocks interleave content (``c``), tool calls (``t``) and invalid calls
  (``i``) otherwise than content, calls, invalid calls.
- ``~form: "blocks"`` on a lone top-level system prompt sent as a list, and
  ``~form: "string"`` on a ``system`` turn sent as a string.
- ``~role: "system"`` on a user message holding a ``system`` turn with blocks
  other than text (``tool_addition``).
- ``~message``: the wire message's own unknown keys, on a tool or system
  message (whose own extras are those of its block).
- ``~keep: true`` on an empty text block, which the encoder otherwise drops
  from requests (Anthropic refuses them).
- ``~content: "absent"`` on a tool result sent without ``content``;
  ``~input: "absent"`` on a ``tool_use`` sent without ``input``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, NamedTuple

import msgspec
from msgspec import Raw

from ..._content import (
    AssistantPart,
    Citation,
    ContentPart,
    FilePart,
    ImagePart,
    OpaquePart,
    ReasoningPart,
    TextPart,
)
from ..._errors import DepthError, ProviderError, ValidationError
from ..._exchange import Choice, ProviderTool, Request, Response, ResponseFormat, Tool, ToolChoice
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import InvalidToolCall, ToolCall, ToolDefinition, parse_tool_call
from ..._usage import FinishReason, Usage
from .._cache import take_cache
from .._finish import READ
from .._wire import encode_body, expect_dict, expect_list, expect_str, json_body, leftover
from ._cite import read_citations
from ._settings import KEYS, read_settings

NAME = "anthropic"

FINISH = READ[NAME]
"""Anthropic ``stop_reason`` -> normalized reason (anything else: ``other``)."""

# The top-level keys the request decoder reads; it keeps the others as sent.
REQUEST_KEYS = frozenset(
    {
        "model",
        "messages",
        "system",
        "max_tokens",
        "temperature",
        "top_p",
        "stop_sequences",
        "stream",
        "tools",
        "tool_choice",
        "output_config",
        *KEYS,
    }
)
_MESSAGE_KEYS = frozenset({"role", "content"})
_TEXT_KEYS = frozenset({"type", "text"})
_MEDIA_KEYS = frozenset({"type", "source"})
_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})
_TOOL_RESULT_KEYS = frozenset({"type", "tool_use_id", "content"})
_THINKING_KEYS = frozenset({"type", "thinking"})
_REDACTED_KEYS = frozenset({"type", "data"})
_TOOL_KEYS = frozenset({"name", "description", "input_schema"})
_CHOICE_KEYS = frozenset({"type", "name"})
_RESPONSE_KEYS = frozenset({"id", "type", "role", "model", "content", "stop_reason", "usage"})
_USAGE_KEYS = frozenset(
    {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "output_tokens_details",
    }
)
_BASE64_SOURCE = frozenset({"type", "media_type", "data"})
_URL_SOURCE = frozenset({"type", "url"})
_FILE_SOURCE = frozenset({"type", "file_id"})
_CHOICE_MODES = FrozenMap({"auto": "auto", "any": "required", "tool": "tool", "none": "none"})


def _extras(rest: dict[str, Any] | None) -> dict[str, Any] | None:
    return {NAME: rest} if rest else None


def _rest(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    # Most blocks have exactly the known keys: skip building a dict for them.
    if len(obj) <= len(known) and obj.keys() <= known:
        return None
    return leftover(obj, known)


def _opaque(block: dict[str, Any]) -> OpaquePart:
    return OpaquePart(provider=NAME, data=Raw(encode_body(block)))


# --- content blocks ---------------------------------------------------------


def _text(block: dict[str, Any], path: str) -> TextPart:
    text = block.get("text")
    if type(text) is not str:
        raise ValidationError("must be a string", path + ".text")
    cache, rest = take_cache(_rest(block, _TEXT_KEYS))
    citations: tuple[Citation, ...] = ()
    if rest is not None and "citations" in rest:
        found = read_citations(rest["citations"])
        if found is not None:
            citations = found
            rest = {key: value for key, value in rest.items() if key != "citations"} or None
    if not text:  # refused in requests: the encoder drops it, unless it came from here
        rest = {**(rest or {}), "~keep": True}
    return TextPart(text, citations, extras=_extras(rest), cache=cache)


def _content_part(block: Any, path: str) -> ContentPart:
    """A block of a user turn or of a tool result."""
    block = expect_dict(block, path)
    kind = block.get("type")
    if kind == "text":
        return _text(block, path)
    if kind == "image" or kind == "document":
        part = _media(block, kind == "image")
        if part is not None:
            return part
    elif type(kind) is not str:
        raise ValidationError("must be a string", path + ".type")
    return _opaque(block)


def _media(block: dict[str, Any], image: bool) -> ContentPart | None:
    """An image or document block as a canonical part, or None to keep it opaque."""
    source = block.get("source")
    if type(source) is not dict:
        return None
    kind = source.get("type")
    cache, rest = take_cache(_rest(block, _MEDIA_KEYS))
    extras = _extras(rest)
    keys = source.keys()
    if kind == "base64" and keys == _BASE64_SOURCE:
        data, media_type = source["data"], source["media_type"]
        if type(data) is not str or type(media_type) is not str or not media_type:
            return None
        if image:
            return ImagePart(data=data, media_type=media_type, extras=extras, cache=cache)
        if media_type != "application/pdf":
            return None  # the only base64 document Anthropic takes
        return FilePart(data=data, media_type=media_type, extras=extras, cache=cache)
    if kind == "url" and keys == _URL_SOURCE:
        url = source["url"]
        if type(url) is not str or url.startswith("data:"):
            return None
        if image:
            return ImagePart(url=url, extras=extras, cache=cache)
        return FilePart(url=url, extras=extras, cache=cache)
    if image:
        return None
    if kind == "file" and keys == _FILE_SOURCE:
        file_id = source["file_id"]
        if type(file_id) is not str:
            return None
        return FilePart(file_id=file_id, extras=extras, cache=cache)
    if kind == "text" and keys == _BASE64_SOURCE and source["media_type"] == "text/plain":
        text = source["data"]
        if type(text) is not str:
            return None
        try:
            data = base64.b64encode(text.encode()).decode("ascii")
        except UnicodeError:
            return None
        return FilePart(data=data, media_type="text/plain", extras=extras, cache=cache)
    return None


def text_source(data: str) -> str | None:
    """The text of a base64 ``text/plain`` file, or None if it is not UTF-8 base64."""
    try:
        return base64.b64decode(data, validate=True).decode()
    except (binascii.Error, ValueError):
        return None


def _tool_result(block: dict[str, Any], path: str) -> ToolMessage:
    tool_use_id = expect_str(block.get("tool_use_id"), path + ".tool_use_id")
    if not tool_use_id:
        raise ValidationError("must not be empty", path + ".tool_use_id")
    cache, rest = take_cache(_rest(block, _TOOL_RESULT_KEYS))
    is_error = False
    if rest is not None and rest.get("is_error") is True:
        del rest["is_error"]
        is_error = True
    content: str | tuple[ContentPart, ...]
    raw = block.get("content", msgspec.UNSET)
    if type(raw) is str:
        content = raw
    elif type(raw) is list:
        where = path + ".content"
        content = tuple([_content_part(item, f"{where}[{k}]") for k, item in enumerate(raw)])
    elif raw is msgspec.UNSET:
        content = ""
        rest = {**(rest or {}), "~content": "absent"}
    else:
        raise ValidationError("must be a string or an array", path + ".content")
    return ToolMessage(tool_use_id, content, is_error=is_error, extras=_extras(rest), cache=cache)


class Streamed(NamedTuple):
    """A streamed ``tool_use`` input: its fragments joined, and why it is no call (or None).

    The stream decoder puts it in place of ``input`` so that the arguments
    keep the bytes the fragments had, and a cut-off input says it was cut.
    """

    text: str
    error: str | None


def _tool_use(block: dict[str, Any], path: str) -> ToolCall | InvalidToolCall:
    id_, name, arguments = block.get("id"), block.get("name"), block.get("input", msgspec.UNSET)
    rest = _rest(block, _TOOL_USE_KEYS)
    if type(arguments) is dict and type(id_) is str and id_ and type(name) is str and name:
        cache, rest = take_cache(rest)
        return ToolCall(id_, name, Raw(encode_body(arguments)), extras=_extras(rest), cache=cache)
    id_ = expect_str(id_, path + ".id")
    name = expect_str(name, path + ".name")
    for key, value in (("id", id_), ("name", name)):
        if not value:
            rest = {**(rest or {}), key: value}
    if type(arguments) is Streamed:
        if arguments.error is None and id_ and name:
            return ToolCall(id_, name, Raw(arguments.text.encode()), extras=_extras(rest))
        if arguments.error is not None:
            return InvalidToolCall(
                id=id_ or None,
                name=name or None,
                arguments=arguments.text,
                error=arguments.error,
                extras=_extras(rest),
            )
        data = arguments.text.encode()
    elif arguments is msgspec.UNSET:
        rest = {**(rest or {}), "~input": "absent"}
        data = b""
    else:
        data = encode_body(arguments)
    call = parse_tool_call(id_, name, data)
    if isinstance(call, ToolCall):  # an empty id or name makes it invalid
        raise AssertionError("unreachable")  # pragma: no cover
    return InvalidToolCall(
        id=call.id, name=call.name, arguments=call.arguments, error=call.error, extras=_extras(rest)
    )


def _assistant(
    content: Any, path: str, rest: dict[str, Any] | None, *, response: bool = False
) -> AssistantMessage | None:
    if type(content) is str and not response:
        return AssistantMessage(content, extras=_extras(rest))
    blocks = expect_list(content, path)
    parts: list[AssistantPart] = []
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    order: list[str] = []
    for k, block in enumerate(blocks):
        where = f"{path}[{k}]"
        block = expect_dict(block, where)
        kind = block.get("type")
        if kind == "text":
            parts.append(_text(block, where))
            order.append("c")
        elif kind == "tool_use":
            call = _tool_use(block, where)
            if isinstance(call, ToolCall):
                calls.append(call)
                order.append("t")
            else:
                invalid.append(call)
                order.append("i")
        else:
            parts.append(_reasoning(block, where))
            order.append("c")
    if not parts and not calls and not invalid and response:
        return None
    if order and (calls or invalid):
        default = "c" * len(parts) + "t" * len(calls) + "i" * len(invalid)
        wire = "".join(order)
        if wire != default:
            rest = {**(rest or {}), "~order": wire}
    body = tuple(parts) if parts or not (calls or invalid) else None
    return AssistantMessage(body, tuple(calls), tuple(invalid), extras=_extras(rest))


def _reasoning(block: dict[str, Any], path: str) -> AssistantPart:
    kind = block.get("type")
    if kind == "thinking":
        text = block.get("thinking")
        if type(text) is str:
            rest = _rest(block, _THINKING_KEYS)
            signature = None
            if rest is not None and type(rest.get("signature")) is str:
                signature = rest.pop("signature")
            return ReasoningPart(text, signature, None, NAME, extras=_extras(rest))
    elif kind == "redacted_thinking":
        data = block.get("data")
        if type(data) is str:
            rest = _rest(block, _REDACTED_KEYS)
            return ReasoningPart("", None, data, NAME, extras=_extras(rest))
    elif type(kind) is not str:
        raise ValidationError("must be a string", path + ".type")
    return _opaque(block)


# --- messages ---------------------------------------------------------------


def _system_prompt(value: Any, out: list[Message]) -> bool:
    """Append the top-level system prompt as messages; False to keep it in extras."""
    if type(value) is str:
        if not value:
            return False
        out.append(SystemMessage(value))
        return True
    if type(value) is not list or not value:
        if value is None or type(value) is list:
            return False
        raise ValidationError("must be a string or an array of text blocks", "$.system")
    for block in value:
        if type(block) is not dict or block.get("type") != "text":
            return False
        text = block.get("text")
        if type(text) is not str or not text:
            return False
    for block in value:
        cache, rest = take_cache(_rest(block, _TEXT_KEYS))
        if len(value) == 1:
            rest = {**(rest or {}), "~form": "blocks"}
        out.append(SystemMessage(block["text"], extras=_extras(rest), cache=cache))
    return True


def _system_turn(content: Any, path: str, turn: dict[str, Any] | None) -> list[Message]:
    where = path + ".content"
    if type(content) is str:
        if not content:
            raise ValidationError("must not be empty", where)
        rest: dict[str, Any] = {"~form": "string"}
        if turn:
            rest["~message"] = turn
        return [SystemMessage(content, extras=_extras(rest))]
    blocks = expect_list(content, where)
    if blocks and all(
        type(block) is dict
        and block.get("type") == "text"
        and type(block.get("text")) is str
        and block["text"]
        for block in blocks
    ):
        out: list[Message] = []
        for block in blocks:
            cache, extra = take_cache(_rest(block, _TEXT_KEYS))
            if turn and not out:
                extra = {**(extra or {}), "~message": turn}
            out.append(SystemMessage(block["text"], extras=_extras(extra), cache=cache))
        return out
    # Blocks a system message cannot hold (tool_addition): a user message
    # marked to go back as a system turn.
    parts = tuple([_content_part(block, f"{where}[{k}]") for k, block in enumerate(blocks)])
    if not parts:
        raise ValidationError("must not be empty", where)
    return [UserMessage(parts, extras=_extras({**(turn or {}), "~role": "system"}))]


def _user_turn(content: Any, path: str, turn: dict[str, Any] | None) -> list[Message]:
    where = path + ".content"
    if type(content) is str:
        if not content:
            raise ValidationError("must not be empty", where)
        return [UserMessage(content, extras=_extras(turn))]
    blocks = expect_list(content, where)
    out: list[Message] = []
    parts: list[ContentPart] = []
    tool_after_user = False
    for k, block in enumerate(blocks):
        if type(block) is dict and block.get("type") == "tool_result":
            if parts:
                out.append(UserMessage(tuple(parts)))
                parts = []
            if out and isinstance(out[-1], UserMessage):
                tool_after_user = True
            out.append(_tool_result(block, f"{where}[{k}]"))
        else:
            parts.append(_content_part(block, f"{where}[{k}]"))
    if parts:
        out.append(UserMessage(tuple(parts)))
    if not out:
        raise ValidationError("must not be empty", where)
    first = out[0]
    hints: dict[str, Any] = dict(turn or {}) if isinstance(first, UserMessage) else {}
    if turn and isinstance(first, ToolMessage):
        hints["~message"] = turn
    if tool_after_user:
        hints["~order"] = "wire"
    if hints:
        out[0] = _with(first, hints)
    return out


def _with(message: Message, hints: dict[str, Any]) -> Message:
    """``message`` with ``hints`` added to its anthropic extras."""
    extras = dict(message.extras or {})
    extras[NAME] = {**extras.get(NAME, {}), **hints}
    return msgspec.structs.replace(message, extras=extras)


def _messages(wire: Any, out: list[Message]) -> None:
    wire = expect_list(wire, "$.messages")
    previous: str | None = "system"  # a system turn first in messages is not hoisted
    for i, message in enumerate(wire):
        path = f"$.messages[{i}]"
        message = expect_dict(message, path)
        role = message.get("role")
        content = message.get("content")
        turn = _rest(message, _MESSAGE_KEYS)
        if role == "user":
            found = _user_turn(content, path, turn)
        elif role == "assistant":
            reply = _assistant(content, path + ".content", turn)
            assert reply is not None
            found = [reply]
        elif role == "system":
            found = _system_turn(content, path, turn)
        else:
            raise ValidationError('must be "user", "assistant" or "system"', path + ".role")
        if role == previous:
            found[0] = _with(found[0], {"~turn": "new"})
        out.extend(found)
        previous = role


# --- requests ---------------------------------------------------------------


def _tool(tool: Any, path: str) -> Tool:
    tool = expect_dict(tool, path)
    kind = tool.get("type")
    if kind is None or kind == "custom":
        name, description = tool.get("name"), tool.get("description")
        schema, strict = tool.get("input_schema"), tool.get("strict")
        if (
            type(name) is str
            and (description is None or type(description) is str)
            and type(schema) is dict
            and (strict is None or type(strict) is bool)
        ):
            cache, rest = take_cache(_rest(tool, _TOOL_KEYS))
            if ("description" in tool and description is None) or description == "":
                # "" is canonically absent; both are kept for the way back.
                rest = {**(rest or {}), "description": description}
                description = None
            if rest is not None and rest.get("strict") is True:
                del rest["strict"]
            try:
                return ToolDefinition(
                    name,
                    description,
                    schema,
                    strict=strict is True,
                    extras=_extras(rest),
                    cache=cache,
                )
            except DepthError as exc:  # the place in the body, named only if it is too deep
                raise DepthError(exc.limit, f"{path}.input_schema") from None
            except ValidationError:
                pass  # a name or schema the canonical rules refuse: keep it as is
    elif type(kind) is not str:
        raise ValidationError("must be a string", path + ".type")
    return ProviderTool(provider=NAME, data=Raw(encode_body(tool)))


def _tool_choice(value: Any) -> tuple[ToolChoice, bool | None]:
    value = expect_dict(value, "$.tool_choice")
    kind = value.get("type")
    mode = _CHOICE_MODES.get(kind) if type(kind) is str else None
    if mode is None:
        raise ValidationError('must be "auto", "any", "tool" or "none"', "$.tool_choice.type")
    name = value.get("name") if mode == "tool" else None
    if mode == "tool":
        expect_str(name, "$.tool_choice.name")
    rest = _rest(value, _CHOICE_KEYS if mode == "tool" else frozenset({"type"}))
    parallel = None
    if rest is not None and type(rest.get("disable_parallel_tool_use")) is bool:
        parallel = not rest.pop("disable_parallel_tool_use")
    choice = ToolChoice(mode, name, extras=_extras(rest))  # type: ignore[arg-type]
    return choice, parallel


def _number(body: dict[str, Any], key: str, kinds: tuple[type, ...]) -> Any:
    value = body.get(key)
    if value is not None and type(value) not in kinds:
        rule = "must be an integer" if kinds == (int,) else "must be a number"
        raise ValidationError(rule, "$." + key)
    return value


def decode_request(body: bytes | str) -> Request:
    """Read a Messages API request body (see the package docstring)."""
    data = json_body(body)
    rest = _rest(data, REQUEST_KEYS) or {}
    messages: list[Message] = []
    if "system" in data and not _system_prompt(data["system"], messages):
        rest["system"] = data["system"]
    _messages(data.get("messages"), messages)
    model = data.get("model")
    if model is not None:
        expect_str(model, "$.model")
    stream = data.get("stream")
    if stream is not None and type(stream) is not bool:
        raise ValidationError("must be a boolean", "$.stream")
    stop = data.get("stop_sequences")
    if stop is not None:
        stop = tuple(expect_list(stop, "$.stop_sequences"))
        for k, item in enumerate(stop):
            expect_str(item, f"$.stop_sequences[{k}]")
    tools: tuple[Tool, ...] = ()
    if "tools" in data and data["tools"] is not None:
        wire = expect_list(data["tools"], "$.tools")
        tools = tuple([_tool(tool, f"$.tools[{k}]") for k, tool in enumerate(wire)])
        if not tools:
            rest["tools"] = []  # an empty list, not an absent key
    choice = parallel = None
    if data.get("tool_choice") is not None:
        choice, parallel = _tool_choice(data["tool_choice"])
    response_format = None
    if "output_config" in data:
        response_format = _output_config(data["output_config"], rest)
    for key in ("model", "max_tokens", "temperature", "top_p", "stop_sequences", "stream"):
        if key in data and data[key] is None:
            rest[key] = None
    for key in ("tools", "tool_choice"):
        if key in data and data[key] is None:
            rest[key] = None
    settings = read_settings(data, rest, model)
    return Request(
        messages=tuple(messages),
        model=model,
        tools=tools,
        tool_choice=choice,
        parallel_tool_calls=parallel,
        max_tokens=_number(data, "max_tokens", (int,)),
        temperature=_number(data, "temperature", (int, float)),
        top_p=_number(data, "top_p", (int, float)),
        stop=stop,
        stream=stream,
        response_format=response_format,
        **settings,
        extras=_extras(rest),
    )


def _output_config(value: Any, rest: dict[str, Any]) -> ResponseFormat | None:
    """The ``format`` of ``output_config`` as a response format; the rest to ``rest``."""
    if type(value) is dict:
        fmt = value.get("format")
        if (
            type(fmt) is dict
            and fmt.get("type") == "json_schema"
            and type(fmt.get("schema")) is dict
        ):
            rest["output_config"] = {key: v for key, v in value.items() if key != "format"}
            extra = _rest(fmt, frozenset({"type", "schema"}))
            return ResponseFormat("json_schema", schema=fmt["schema"], extras=_extras(extra))
    rest["output_config"] = value
    return None


# --- responses --------------------------------------------------------------


def _usage(value: Any) -> Usage:
    usage = expect_dict(value, "$.usage")
    counts = []
    for key in ("input_tokens", "output_tokens"):
        count = usage.get(key)
        if type(count) is not int:
            raise ValidationError("must be an integer", "$.usage." + key)
        if count < 0:
            raise ValidationError("must not be negative", "$.usage." + key)
        counts.append(count)
    rest = _rest(usage, _USAGE_KEYS) or {}
    cached = usage.get("cache_read_input_tokens")
    created = usage.get("cache_creation_input_tokens")
    for key, count in (
        ("cache_read_input_tokens", cached),
        ("cache_creation_input_tokens", created),
    ):
        if count is not None and (type(count) is not int or count < 0):
            raise ValidationError("must be a non-negative integer", "$.usage." + key)
    if created is None and "cache_creation_input_tokens" in usage:
        rest["cache_creation_input_tokens"] = None
    if cached is None and "cache_read_input_tokens" in usage:
        rest["cache_read_input_tokens"] = None
    reasoning = None
    if "output_tokens_details" in usage:
        details = usage["output_tokens_details"]
        if type(details) is dict and type(details.get("thinking_tokens")) is int:
            reasoning = details["thinking_tokens"]
            details = {key: v for key, v in details.items() if key != "thinking_tokens"}
        rest["output_tokens_details"] = details
    prompt = counts[0] + (cached or 0) + (created or 0)
    return Usage(prompt, counts[1], None, cached, reasoning, created, extras=_extras(rest))


def _error(data: dict[str, Any]) -> ProviderError:
    error = data.get("error")
    kind = message = None
    if type(error) is dict:
        kind = error.get("type") if type(error.get("type")) is str else None
        message = error.get("message") if type(error.get("message")) is str else None
    return ProviderError(NAME, type=kind, message=message, body=data)


def decode_response(body: bytes | str) -> Response:
    """Read a Messages API response body (see the package docstring)."""
    return response_from(json_body(body))


def response_from(data: dict[str, Any]) -> Response:
    """A response body, parsed to builtins, as a canonical response."""
    if data.get("type") == "error" or ("error" in data and "content" not in data):
        raise _error(data)
    rest = _rest(data, _RESPONSE_KEYS) or {}
    for key, default in (("type", "message"), ("role", "assistant")):
        if data.get(key, default) != default:
            rest[key] = data[key]
    id_, model = data.get("id"), data.get("model")
    for key, value in (("id", id_), ("model", model)):
        if value is not None and type(value) is not str:
            raise ValidationError("must be a string", "$." + key)
        if value is None and key in data:
            rest[key] = None
    message = _assistant(data.get("content"), "$.content", None, response=True)
    raw = data.get("stop_reason")
    if raw is not None and type(raw) is not str:
        raise ValidationError("must be a string", "$.stop_reason")
    finish = None if raw is None else FINISH.get(raw, FinishReason.OTHER)
    usage = _usage(data["usage"]) if data.get("usage") is not None else None
    if "usage" in data and usage is None:
        rest["usage"] = None
    return Response(
        (Choice(message, finish, raw),), id_, model, usage, extras=_extras(rest or None)
    )
