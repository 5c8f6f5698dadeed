"""pydantic-ai's message history, to and from chatcodec's messages.

Needs ``pydantic-ai-slim`` (``pip install 'chatcodec[pydantic-ai]'``).

pydantic-ai keeps a history as ``ModelRequest`` and ``ModelResponse`` messages,
each a list of parts. A run of system, developer, user and tool messages is one
``ModelRequest``; an assistant message is one ``ModelResponse``:

========================  ====================================================
chatcodec                 pydantic-ai
========================  ====================================================
system, developer         ``SystemPromptPart``
user                      ``UserPromptPart``: text, ``ImageUrl``,
                          ``AudioUrl``, ``DocumentUrl``, ``BinaryContent``
                          (an image's ``detail`` in ``vendor_metadata``, as
                          pydantic-ai's OpenAI model reads it)
tool result               ``ToolReturnPart`` (``outcome="failed"`` for an
                          error, ``details`` as its ``metadata``)
assistant text            ``TextPart``
reasoning                 ``ThinkingPart`` (signature, provider; a redacted
                          block as ``id="redacted_thinking"``)
tool call                 ``ToolCallPart``, its arguments as the JSON text
                          they were sent as
========================  ====================================================

A message's ``id``, ``metadata`` and ``extras``, and what tells a developer
message or parts content from the rest, travel in the pydantic-ai message's
``metadata["chatcodec"]``; what pydantic-ai holds and chatcodec has no field for
(a response's ``usage``, ``model_name``, ``finish_reason``...) is kept in the
assistant message's ``extras["pydantic_ai"]`` and written back. What
pydantic-ai cannot hold (a refusal, an opaque provider block, a file by id
without its provider, a part's ``extras``) is reported in ``losses``.

Examples
--------
>>> import chatcodec as cc
>>> from chatcodec.interop.pydantic_ai import from_pydantic_ai, to_pydantic_ai
>>> call = cc.tool_call("call_1", "weather", {"city": "Paris"})
>>> history = [cc.system("Be brief."), cc.user("Weather in Paris?"),
...            cc.assistant(None, tool_calls=[call]),
...            cc.tool_result("call_1", "18 C", name="weather")]
>>> messages = to_pydantic_ai(history)
>>> for message in messages:
...     print(message.kind, [part.part_kind for part in message.parts])
request ['system-prompt', 'user-prompt']
response ['tool-call']
request ['tool-return']
>>> from_pydantic_ai(messages) == history
True
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .._content import AudioPart, FilePart, ImagePart, ReasoningPart, TextPart
from .._errors import ValidationError
from .._loss import Loss
from .._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .._tools import InvalidToolCall, ToolCall, ToolResultDetails
from ._common import json_values

try:
    from pydantic_ai import messages as pai
    from pydantic_ai.usage import RequestUsage
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "chatcodec.interop.pydantic_ai needs pydantic-ai: pip install 'chatcodec[pydantic-ai]'"
    ) from exc

__all__ = ["NAME", "from_pydantic_ai", "to_pydantic_ai"]

NAME = "pydantic_ai"
"""The key of what pydantic-ai holds and chatcodec has no field for, in ``extras``."""

_KEPT = "chatcodec"
_REDACTED = "redacted_thinking"
_ENCODE = msgspec.json.Encoder()
_DECODE = msgspec.json.Decoder()
# What a ModelResponse holds beyond its parts that an assistant message keeps.
_RESPONSE_FIELDS = (
    "model_name",
    "provider_name",
    "provider_url",
    "provider_details",
    "provider_response_id",
    "finish_reason",
)


def _record(message: Message) -> dict[str, Any]:
    """What chatcodec keeps of a message in pydantic-ai's ``metadata``."""
    kept: dict[str, Any] = {}
    if message.id is not None:
        kept["id"] = message.id
    if message.metadata is not None:
        kept["metadata"] = json_values(message.metadata)
    extras = {key: value for key, value in (message.extras or {}).items() if key != NAME}
    if extras:
        kept["extras"] = json_values(extras)
    return kept


def _lost(losses: list[Loss] | None, path: str, reason: str) -> None:
    if losses is not None:
        losses.append(Loss(path, reason))


def _media(part: Any, path: str, losses: list[Loss] | None) -> Any:
    """A media part as pydantic-ai's user content, or None when it has no form there."""
    vendor: dict[str, Any] = {}
    for name in (
        "detail",
        "recognition",
        "recognized_text",
        "vision_analysis",
        "recognition_error",
        "filename",
    ):
        value = getattr(part, name, None)
        if value is not None:
            vendor[name] = value
    if part.extras:
        _lost(losses, f"{path}.extras", "pydantic-ai content has no place for a part's extras")
    kind = type(part)
    if getattr(part, "file_id", None) is not None:
        _lost(
            losses,
            path,
            "pydantic-ai's uploaded files name their provider: a file id alone has none",
        )
        return None
    if part.url is not None:
        cls: Any = (
            pai.ImageUrl
            if kind is ImagePart
            else pai.AudioUrl
            if kind is AudioPart
            else pai.DocumentUrl
        )
        return cls(part.url, media_type=part.media_type, vendor_metadata=vendor or None)
    try:
        data = base64.b64decode(part.data, validate=True)
    except (binascii.Error, ValueError):
        _lost(losses, f"{path}.data", "pydantic-ai takes bytes: this data is not base64")
        return None
    if not part.media_type:
        _lost(losses, f"{path}.media_type", "pydantic-ai's inline content needs a media type")
        return None
    content = pai.BinaryContent(data, media_type=part.media_type, vendor_metadata=vendor or None)
    if kind is not _binary_kind(content):
        vendor_kind = "image" if kind is ImagePart else "audio" if kind is AudioPart else "file"
        content.vendor_metadata = {**(content.vendor_metadata or {}), "chatcodec_part": vendor_kind}
    return content


def _binary_kind(content: Any) -> type[Any]:
    """The part chatcodec reads inline bytes as, by their media type."""
    if content.is_image:
        return ImagePart
    if content.is_audio:
        return AudioPart
    return FilePart


def _uncited(part: TextPart, path: str, losses: list[Loss] | None) -> None:
    for k in range(len(part.citations)):
        _lost(losses, f"{path}.citations[{k}]", "pydantic-ai text parts have no citations")


def _user_content(content: str | tuple[Any, ...], path: str, losses: list[Loss] | None) -> Any:
    if type(content) is str:
        return content
    out: list[Any] = []
    for n, part in enumerate(content):
        at = f"{path}.content[{n}]"
        if type(part) is TextPart:
            if part.extras:
                _lost(
                    losses, f"{at}.extras", "pydantic-ai content has no place for a part's extras"
                )
            _uncited(part, at, losses)
            out.append(part.text)
        elif type(part) in (ImagePart, AudioPart, FilePart):
            media = _media(part, at, losses)
            if media is not None:
                out.append(media)
        else:
            _lost(losses, at, f"pydantic-ai content has no {part.__class__.__name__}")
    return out


def _response(message: AssistantMessage, path: str, losses: list[Loss] | None) -> Any:
    parts: list[Any] = []
    content = message.content
    if type(content) is str:
        if content or not (message.tool_calls or message.invalid_tool_calls):
            parts.append(pai.TextPart(content))
    elif content is not None:
        for n, part in enumerate(content):
            at = f"{path}.content[{n}]"
            if getattr(part, "extras", None):
                _lost(losses, f"{at}.extras", "pydantic-ai parts have no place for a part's extras")
            if type(part) is TextPart:
                _uncited(part, at, losses)
                parts.append(pai.TextPart(part.text))
            elif type(part) is ReasoningPart:
                if part.redacted is not None:
                    if part.signature is not None:
                        reason = "pydantic-ai's redacted thinking has no place for a signature"
                        _lost(losses, f"{at}.signature", reason)
                    parts.append(
                        pai.ThinkingPart(
                            part.text,
                            id=_REDACTED,
                            signature=part.redacted,
                            provider_name=part.provider,
                        )
                    )
                else:
                    parts.append(
                        pai.ThinkingPart(
                            part.text, signature=part.signature, provider_name=part.provider
                        )
                    )
            else:
                _lost(losses, at, f"pydantic-ai responses have no {part.__class__.__name__}")
    invalid: dict[str, Any] = {}
    for call in message.tool_calls:
        parts.append(pai.ToolCallPart(call.name, bytes(call.arguments).decode(), call.id))
        if call.approval is not None or call.extras:
            invalid.setdefault("calls", {})[call.id] = json_values(
                {"approval": call.approval, "extras": call.extras}
            )
    for n, bad in enumerate(message.invalid_tool_calls):
        call_id = bad.id or f"invalid_{n}"
        parts.append(pai.ToolCallPart(bad.name or "", bad.arguments, call_id))
        invalid.setdefault("invalid", {})[call_id] = {
            "error": bad.error,
            "id": bad.id,
            "name": bad.name,
        }
    kept = _record(message) | invalid
    if type(content) is tuple and (not content or _one_text(content)):
        kept["content"] = "parts"
    elif content == "" and (message.tool_calls or message.invalid_tool_calls):
        kept["content"] = ""
    fields: dict[str, Any] = {}
    own = (message.extras or {}).get(NAME)
    if isinstance(own, Mapping):
        for key in _RESPONSE_FIELDS:
            if own.get(key) is not None:
                fields[key] = own[key]
        if own.get("usage") is not None:
            fields["usage"] = RequestUsage(**own["usage"])
    return pai.ModelResponse(parts, metadata={_KEPT: kept} if kept else None, **fields)


def _one_text(content: tuple[Any, ...]) -> bool:
    return len(content) == 1 and type(content[0]) is TextPart and content[0].extras is None


def _request_part(
    message: Message, path: str, names: dict[str, str], losses: list[Loss] | None
) -> tuple[Any | None, dict[str, Any]]:
    kept = _record(message)
    if isinstance(message, SystemMessage | DeveloperMessage):
        if isinstance(message, DeveloperMessage):
            kept["role"] = "developer"
        return pai.SystemPromptPart(message.content), kept
    if isinstance(message, UserMessage):
        if type(message.content) is tuple and _one_text(message.content):
            kept["content"] = "parts"
        prompt = _user_content(message.content, path, losses)
        if not prompt:
            _lost(losses, path, "pydantic-ai can hold none of this user message's parts")
            return None, kept
        return pai.UserPromptPart(prompt), kept
    if isinstance(message, ToolMessage):
        name = message.name if message.name is not None else names.get(message.tool_call_id)
        if message.name is None:
            kept["name"] = None
        content: Any = message.content
        if type(content) is not str:
            content = _user_content(content, path, losses)
            if content:
                kept["content"] = "parts"
            else:  # every part lost (and reported): an empty result
                content = ""
        details = json_values(message.details) if message.details is not None else None
        part = pai.ToolReturnPart(
            name or "",
            content,
            message.tool_call_id,
            metadata=details,
            outcome="failed" if message.is_error else "success",
        )
        return part, kept
    raise ValidationError(
        "has no pydantic-ai form: a record of a kind this version does not know", path
    )


def to_pydantic_ai(
    messages: Iterable[Message], *, losses: list[Loss] | None = None
) -> list[pai.ModelMessage]:
    """pydantic-ai's history (``ModelRequest`` and ``ModelResponse``) for chatcodec's messages.

    Parameters
    ----------
    messages : iterable of Message
        A history.
    losses : list of Loss, optional
        Collects what pydantic-ai cannot hold.

    Returns
    -------
    list of ModelRequest and ModelResponse
        Use it as a run's ``message_history``, or store it with
        ``pydantic_ai.messages.ModelMessagesTypeAdapter``.

    Raises
    ------
    ValidationError
        For a record of a kind this version does not know.
    """
    out: list[Any] = []
    names: dict[str, str] = {}  # a call's tool name by its id, for results that have none
    parts: list[Any] = []
    records: list[dict[str, Any]] = []

    def close() -> None:
        if parts:
            metadata = {_KEPT: list(records)} if any(records) else None
            out.append(pai.ModelRequest(list(parts), metadata=metadata))
            parts.clear()
            records.clear()

    for n, message in enumerate(messages):
        path = f"$[{n}]"
        if isinstance(message, AssistantMessage):
            close()
            names.update((call.id, call.name) for call in message.tool_calls)
            out.append(_response(message, path, losses))
        else:
            part, kept = _request_part(message, path, names, losses)
            if part is not None:
                parts.append(part)
                records.append(kept)
    close()
    return out


def _read_media(item: Any, path: str) -> Any:
    vendor = dict(item.vendor_metadata or {})
    named = vendor.pop("chatcodec_part", None)
    kind = getattr(item, "kind", None)
    if isinstance(item, pai.BinaryContent):
        cls: Any = {"image": ImagePart, "audio": AudioPart, "file": FilePart}.get(
            named, _binary_kind(item)
        )
        fields: dict[str, Any] = {
            "data": base64.b64encode(item.data).decode(),
            "media_type": item.media_type,
        }
    elif kind in ("image-url", "audio-url", "document-url", "video-url"):
        cls = {"image-url": ImagePart, "audio-url": AudioPart}.get(kind, FilePart)
        fields = {"url": item.url}
        media_type = getattr(item, "_media_type", None)  # given, not guessed from the URL
        if media_type is not None:
            fields["media_type"] = media_type
    else:
        return None
    names = set(cls.__struct_fields__)
    fields.update({key: value for key, value in vendor.items() if key in names})
    rest = {key: value for key, value in vendor.items() if key not in names}
    if rest:
        fields["extras"] = {NAME: {"vendor_metadata": rest}}
    try:
        return msgspec.convert(fields, cls)
    except (msgspec.ValidationError, ValidationError) as exc:
        raise ValidationError(f"must be media chatcodec can hold: {exc}", path) from None


def _read_content(content: Any, path: str, losses: list[Loss] | None, as_parts: bool) -> Any:
    if type(content) is str:
        return (TextPart(content),) if as_parts else content
    parts: list[Any] = []
    for n, item in enumerate(content if isinstance(content, list | tuple) else [content]):
        at = f"{path}[{n}]"
        if type(item) is str:
            parts.append(TextPart(item))
            continue
        media = _read_media(item, at)
        if media is None:
            _lost(losses, at, f"chatcodec has no part for pydantic-ai's {type(item).__name__}")
        else:
            parts.append(media)
    return tuple(parts)


def _common(kept: Mapping[str, Any]) -> dict[str, Any]:
    return {key: kept[key] for key in ("id", "metadata", "extras") if kept.get(key) is not None}


def _read_request(message: Any, path: str, losses: list[Loss] | None) -> list[Message]:
    records = ((message.metadata or {}).get(_KEPT)) or []
    out: list[Message] = []
    for n, part in enumerate(message.parts):
        at = f"{path}.parts[{n}]"
        kept = records[n] if n < len(records) and isinstance(records[n], Mapping) else {}
        try:
            _read_request_part(part, kept, at, out, losses)
        except ValidationError as exc:
            if exc.path.startswith(at):
                raise
            raise ValidationError(exc.rule, at + exc.path[1:]) from None
    return out


def _read_request_part(
    part: Any, kept: Mapping[str, Any], at: str, out: list[Message], losses: list[Loss] | None
) -> None:
    """Append the message one part of a ModelRequest stands for."""
    common = _common(kept)
    if isinstance(part, pai.SystemPromptPart):
        cls: type[SystemMessage | DeveloperMessage] = (
            DeveloperMessage if kept.get("role") == "developer" else SystemMessage
        )
        out.append(cls(part.content, **common))
    elif isinstance(part, pai.UserPromptPart):
        as_parts = kept.get("content") == "parts"
        out.append(
            UserMessage(_read_content(part.content, f"{at}.content", losses, as_parts), **common)
        )
    elif isinstance(part, pai.ToolReturnPart):
        content = part.content
        if type(content) is not str and kept.get("content") != "parts":
            content = part.model_response_str()
        elif type(content) is not str:
            content = _read_content(content, f"{at}.content", losses, True)
        details = None
        if part.metadata is not None:
            try:
                details = msgspec.convert(part.metadata, ToolResultDetails)
            except msgspec.ValidationError:
                extras = dict(common.get("extras") or {})
                extras[NAME] = {"metadata": json_values(part.metadata)}
                common["extras"] = extras
        name = None if "name" in kept and kept["name"] is None else part.tool_name
        out.append(
            ToolMessage(
                part.tool_call_id,
                content,
                is_error=part.outcome in ("failed", "retried"),
                name=name,
                details=details,
                **common,
            )
        )
    elif isinstance(part, pai.RetryPromptPart):
        text = part.model_response()
        if part.tool_name is not None:
            out.append(
                ToolMessage(part.tool_call_id, text, is_error=True, name=part.tool_name, **common)
            )
        else:
            out.append(UserMessage(text, **common))
    else:
        _lost(losses, at, f"chatcodec has no message for pydantic-ai's {type(part).__name__}")


def _read_response(message: Any, path: str, losses: list[Loss] | None) -> AssistantMessage:
    kept = (message.metadata or {}).get(_KEPT) or {}
    invalid_ids = (kept.get("invalid") or {}) if isinstance(kept, Mapping) else {}
    kept_calls = (kept.get("calls") or {}) if isinstance(kept, Mapping) else {}
    parts: list[Any] = []
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for n, part in enumerate(message.parts):
        at = f"{path}.parts[{n}]"
        if isinstance(part, pai.TextPart):
            parts.append(TextPart(part.content))
        elif isinstance(part, pai.ThinkingPart):
            if part.id == _REDACTED:
                parts.append(
                    ReasoningPart(
                        part.content, redacted=part.signature, provider=part.provider_name
                    )
                )
            else:
                parts.append(
                    ReasoningPart(
                        part.content, signature=part.signature, provider=part.provider_name
                    )
                )
        elif isinstance(part, pai.ToolCallPart):
            bad = invalid_ids.get(part.tool_call_id)
            if isinstance(bad, Mapping):
                text = part.args if type(part.args) is str else part.args_as_json_str()
                invalid.append(
                    InvalidToolCall(
                        id=bad.get("id"),
                        name=bad.get("name"),
                        arguments=text or "",
                        error=bad.get("error") or "",
                    )
                )
                continue
            text = part.args if type(part.args) is str else part.args_as_json_str()
            more = kept_calls.get(part.tool_call_id) or {}
            try:
                calls.append(
                    ToolCall(
                        part.tool_call_id,
                        part.tool_name,
                        msgspec.Raw((text or "{}").encode()),
                        approval=more.get("approval"),
                        extras=more.get("extras"),
                    )
                )
            except ValidationError as exc:
                invalid.append(
                    InvalidToolCall(
                        id=part.tool_call_id,
                        name=part.tool_name,
                        arguments=text or "",
                        error=exc.rule,
                    )
                )
        else:
            _lost(
                losses,
                at,
                f"chatcodec has no assistant part for pydantic-ai's {type(part).__name__}",
            )
    common = _common(kept) if isinstance(kept, Mapping) else {}
    own: dict[str, Any] = {}
    for key in _RESPONSE_FIELDS:
        value = getattr(message, key, None)
        if value is not None:
            own[key] = json_values(value)
    usage = json_values(message.usage)
    if any(usage.values()):
        own["usage"] = {key: value for key, value in usage.items() if value}
    if own:
        common["extras"] = {**(common.get("extras") or {}), NAME: own}
    content: Any
    if isinstance(kept, Mapping) and kept.get("content") == "parts":
        content = tuple(parts)
    elif isinstance(kept, Mapping) and kept.get("content") == "":
        content = ""
    elif len(parts) == 1 and type(parts[0]) is TextPart:
        content = parts[0].text
    elif parts:
        content = tuple(parts)
    else:
        content = None if calls or invalid else ""
    return AssistantMessage(content, tuple(calls), tuple(invalid), **common)


def from_pydantic_ai(
    messages: Iterable[pai.ModelMessage], *, losses: list[Loss] | None = None
) -> list[Message]:
    """Messages for a pydantic-ai history: chatcodec's form of each part.

    Parameters
    ----------
    messages : iterable of ModelRequest and ModelResponse
        A history (``result.all_messages()``, or one read with
        ``ModelMessagesTypeAdapter``).
    losses : list of Loss, optional
        Collects what chatcodec has no form for (built-in tool parts, files a
        model made, video).

    Raises
    ------
    ValidationError
        For content that breaks chatcodec's rules; the path names it.
    """
    out: list[Message] = []
    for n, message in enumerate(messages):
        path = f"$[{n}]"
        if isinstance(message, pai.ModelResponse):
            out.append(_read_response(message, path, losses))
        else:
            out.extend(_read_request(message, path, losses))
    return out
