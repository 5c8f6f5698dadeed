"""Gemini's wire to canonical: ``generateContent`` request and response bodies.

A ``model`` content becomes one assistant message: text and thought parts in
``content``, ``functionCall`` parts in ``tool_calls`` (with an ``~order`` hint
when they are not after the rest). A ``user`` content becomes one tool message
per ``functionResponse`` part, then one user message for the other parts.
Function calls usually have no id: each gets one derived from its place and
content, and the results that answer it by name get the same id.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw

from ..._content import AudioPart, FilePart, ImagePart, OpaquePart, ReasoningPart, TextPart
from ..._errors import ProviderError, ValidationError
from ..._exchange import (
    Choice,
    ProviderTool,
    Request,
    Response,
    ResponseFormat,
    Tool,
    ToolChoice,
)
from ..._messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from ..._tools import InvalidToolCall, ToolCall, ToolDefinition
from ..._usage import Usage
from .._wire import derive_id, expect_dict, expect_list, extras_for, json_body
from ._fast import fast_response
from ._keys import NAME, finish_reason, from_gemini_schema, snake, snake_hint, split, table

__all__ = ["decode_request", "decode_response", "response_from"]

_encode = msgspec.json.Encoder().encode
_ABSENT: Any = object()

_TOP = table("contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "model")
_PART = table(
    "text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall",
    "functionResponse",
)  # fmt: skip
_DATA = frozenset(("text", "inlineData", "fileData", "functionCall", "functionResponse"))
_MEDIA = table("mimeType", "data", "fileUri")
_CALL = table("name", "args", "id")
_RESULT = table("name", "response", "id", "parts")
_CONTENT = frozenset(("role", "parts"))
_RESULT_KEY = frozenset(("functionResponse",))
_WRAPS = frozenset(("result", "error"))
_DECL = table("name", "description", "parameters", "parametersJsonSchema")
_GEN = table(
    "maxOutputTokens", "temperature", "topP", "stopSequences", "responseMimeType",
    "responseSchema", "responseJsonSchema",
)  # fmt: skip
_TOOL_CONFIG = table("functionCallingConfig")
_CALLING = table("mode", "allowedFunctionNames")
_MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none", "VALIDATED": "auto"}
_RESPONSE = table("candidates", "usageMetadata", "modelVersion", "responseId")
_CANDIDATE = table("content", "finishReason", "index")
_USAGE = table(
    "promptTokenCount", "candidatesTokenCount", "totalTokenCount", "cachedContentTokenCount",
    "thoughtsTokenCount",
)  # fmt: skip
_NOT_OBJECT = "arguments are valid JSON but not an object"


def _spelled(obj: dict[str, Any], name: str) -> str:
    """The key ``obj`` spells ``name`` with."""
    return name if name in obj else snake(name)


def _number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _opaque(part: dict[str, Any]) -> OpaquePart:
    return OpaquePart(NAME, Raw(_encode(part)))


def _meta_back(part: dict[str, Any], found: dict[str, Any], rest: dict[str, Any] | None) -> Any:
    """Put ``thought`` and ``thoughtSignature`` back among a part's extras."""
    if "thought" not in found and "thoughtSignature" not in found:
        return rest
    rest = dict(rest) if rest else {}
    if "thought" in found:
        rest["thought"] = found["thought"]
    if "thoughtSignature" in found:
        rest[_spelled(part, "thoughtSignature")] = found["thoughtSignature"]
    return rest


class _Decoder:
    """One body's decode: the snake_case keys met and the open function calls."""

    __slots__ = ("cut", "pending", "snakes")

    def __init__(self, cut: dict[tuple[int, int], tuple[str, str]] | None = None) -> None:
        self.snakes: set[str] = set()
        # Calls a stream left unfinished, by (candidate, part): (text so far, why invalid).
        self.cut = cut
        # [id, name] of the calls of the last model turn not answered yet.
        self.pending: list[list[Any]] = []

    # -- parts ------------------------------------------------------------

    def user_part(self, part: dict[str, Any], path: str) -> Any:
        found, rest = split(part, _PART, self.snakes)
        return self.user_found(part, found, rest, path)

    def user_found(self, part: dict[str, Any], found: dict[str, Any], rest: Any, path: str) -> Any:
        kinds = [key for key in found if key in _DATA]
        if len(kinds) != 1:
            return _opaque(part)
        kind = kinds[0]
        rest = _meta_back(part, found, rest)
        if kind == "text":
            text = found["text"]
            if type(text) is not str:
                raise ValidationError("must be a string", f"{path}.text")
            return TextPart(text, extras=extras_for(NAME, rest))
        if kind in ("inlineData", "fileData"):
            return self.media(kind, found[kind], rest, part)
        return _opaque(part)

    def media(self, kind: str, value: Any, rest: Any, part: dict[str, Any]) -> Any:
        if type(value) is not dict:
            return _opaque(part)
        inner, inner_rest = split(value, _MEDIA, self.snakes)
        mime = inner.get("mimeType")
        if kind == "inlineData":
            source, other = inner.get("data"), "fileUri"
        else:
            source, other = inner.get("fileUri"), "data"
        if type(source) is not str or other in inner or not (mime is None or type(mime) is str):
            return _opaque(part)
        if inner_rest:
            rest = {**rest, kind: inner_rest} if rest else {kind: inner_rest}
        extras = extras_for(NAME, rest)
        cls: Any = FilePart
        if mime and mime.startswith("image/"):
            cls = ImagePart
        elif mime and mime.startswith("audio/"):
            cls = AudioPart
        if kind == "inlineData":
            return cls(data=source, media_type=mime, extras=extras)
        return cls(url=source, media_type=mime, extras=extras)

    # -- messages ---------------------------------------------------------

    def model_part(self, part: Any, path: str, index: int, position: int) -> Any:
        """One part of a model turn: a text, reasoning or opaque part, or a call.

        ``index`` is the turn's (or candidate's) index and ``position`` the
        part's, which derive the ids of calls that have none.
        """
        part = expect_dict(part, path)
        found, rest = split(part, _PART, self.snakes)
        kinds = [key for key in found if key in _DATA]
        kind = kinds[0] if len(kinds) == 1 else None
        if kind == "text":
            text = found["text"]
            if type(text) is not str:
                raise ValidationError("must be a string", f"{path}.text")
            signature = found.get("thoughtSignature")
            if found.get("thought") is True and (signature is None or type(signature) is str):
                return ReasoningPart(
                    text,
                    signature=signature,
                    provider=NAME if signature is not None else None,
                    extras=extras_for(NAME, rest),
                )
            rest = _meta_back(part, found, rest)
            return TextPart(text, extras=extras_for(NAME, rest))
        if kind == "functionCall":
            rest = _meta_back(part, found, rest)
            return self.call(found[kind], rest, f"{path}.functionCall", index, position)
        return _opaque(part)

    def assistant(
        self, parts: list[Any], path: str, index: int, hints: dict[str, Any]
    ) -> AssistantMessage:
        content: list[Any] = []
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        order: list[str] = []
        pending: list[list[Any]] = []
        for j, part in enumerate(parts):
            item = self.model_part(part, f"{path}.parts[{j}]", index, j)
            if type(item) is ToolCall:
                calls.append(item)
                pending.append([item.id, item.name])
                order.append("t")
            elif type(item) is InvalidToolCall:
                invalid.append(item)
                pending.append([item.id or None, item.name])
                order.append("i")
            else:
                content.append(item)
                order.append("c")
        self.pending = pending
        if calls or invalid:
            default = "c" * len(content) + "t" * len(calls) + "i" * len(invalid)
            if (joined := "".join(order)) != default:
                hints["~order"] = joined
        body: Any
        if not content:
            body = None if calls or invalid else ()
        elif len(content) == 1 and type(content[0]) is TextPart and content[0].extras is None:
            body = content[0].text
        else:
            body = tuple(content)
        return AssistantMessage(
            body, tuple(calls), tuple(invalid), extras=extras_for(NAME, hints or None)
        )

    def call(
        self, value: Any, rest: Any, path: str, index: int, position: int
    ) -> ToolCall | InvalidToolCall:
        fc = expect_dict(value, path)
        inner, inner_rest = split(fc, _CALL, self.snakes)
        name = inner.get("name", _ABSENT)
        args = inner.get("args", _ABSENT)
        id_ = inner.get("id", _ABSENT)
        extras: dict[str, Any] = dict(rest) if rest else {}
        if inner_rest:
            extras["functionCall"] = inner_rest
        if name is not _ABSENT and type(name) is not str:
            if name is not None:
                raise ValidationError("must be a string", f"{path}.name")
            extras.setdefault("functionCall", {})["name"] = None
            name = _ABSENT
        if id_ is not _ABSENT and type(id_) is not str:
            raise ValidationError("must be a string", f"{path}.id")
        if self.cut is not None and (index, position) in self.cut:
            text, error = self.cut[index, position]
            extras.pop("~args", None)
            return InvalidToolCall(
                id=None if id_ is _ABSENT or not id_ else id_,
                name=None if name is _ABSENT or not name else name,
                arguments=text,
                error=error,
                extras=extras_for(NAME, extras or None),
            )
        data: bytes | None = None
        if type(args) is dict:
            data = _encode(args)
        elif args is _ABSENT:
            data = b"{}"
            extras["~args"] = "absent"
        if data is None or name is _ABSENT or not name:
            if data is None:
                text, error = _encode(args).decode(), _NOT_OBJECT
            else:
                text, error = "" if args is _ABSENT else data.decode(), "tool call has no name"
            return InvalidToolCall(
                id=None if id_ is _ABSENT else id_,
                name=None if name is _ABSENT else name,
                arguments=text,
                error=error,
                extras=extras_for(NAME, extras or None),
            )
        if id_ is _ABSENT or not id_:
            extras["~id"] = "derived" if id_ is _ABSENT else id_
            id_ = derive_id("call_", index, position, name, data)
        return ToolCall(id_, name, Raw(data), extras=extras_for(NAME, extras))

    def result(self, value: Any, rest: Any, path: str, index: int, position: int) -> ToolMessage:
        fr = expect_dict(value, path)
        inner, inner_rest = split(fr, _RESULT, self.snakes)
        extras: dict[str, Any] = dict(rest) if rest else {}
        keep: dict[str, Any] = dict(inner_rest) if inner_rest else {}
        name = inner.get("name", _ABSENT)
        id_ = inner.get("id", _ABSENT)
        if id_ is not _ABSENT and type(id_) is not str:
            raise ValidationError("must be a string", f"{path}.id")
        matched: list[Any] | None = None
        if id_ is not _ABSENT and id_:
            for call in self.pending:
                if call[0] == id_:
                    matched = call
                    break
            call_id = id_
        else:
            extras["~id"] = "derived" if id_ is _ABSENT else id_
            for call in self.pending:
                if call[1] == name and call[0] is not None:
                    matched = call
                    break
            call_id = (
                matched[0]
                if matched is not None
                else derive_id("call_", index, position, name if type(name) is str else "")
            )
        if matched is not None:
            self.pending.remove(matched)
        if name is _ABSENT:
            extras["~name"] = "absent"
        elif matched is None or matched[1] != name:
            keep["name"] = name
        response = inner.get("response", _ABSENT)
        error = False
        if response is _ABSENT:
            text = ""
            extras["~response"] = "absent"
        elif type(response) is dict and len(response) == 1 and _WRAPS.issuperset(response):
            # ``{"result": text}`` (``{"error": text}``) is how text is sent: read the text.
            [(key, text)] = response.items()
            if type(text) is not str:
                text = _encode(response).decode()
            else:
                error = key == "error"
                if text[:1] == "{" or text[:1].isspace():
                    extras["~response"] = "wrap"
        else:
            text = _encode(response).decode()
            if type(response) is not dict:
                extras["~response"] = "json"
        content: Any = text
        parts = inner.get("parts", _ABSENT)
        if type(parts) is list and parts:
            media = [
                self.user_part(expect_dict(part, f"{path}.parts[{k}]"), f"{path}.parts[{k}]")
                for k, part in enumerate(parts)
            ]
            content = (TextPart(text), *media)
        elif parts is not _ABSENT:
            keep["parts"] = parts
        if keep:
            extras["functionResponse"] = keep
        return ToolMessage(
            call_id, content, is_error=error, extras=extras_for(NAME, extras or None)
        )

    def user_turn(
        self, parts: list[Any], path: str, index: int, hints: dict[str, Any], after: bool
    ) -> tuple[list[Message], bool]:
        """The messages of a user content, and whether it held only results.

        ``hints`` are the content's (role, keys of its own); ``after``: the
        content before held only results, so results here start a new one.
        """
        results: list[ToolMessage] = []
        others: list[Any] = []
        order: list[str] = []
        for j, part in enumerate(parts):
            ppath = f"{path}.parts[{j}]"
            part = expect_dict(part, ppath)
            found, rest = split(part, _PART, self.snakes)
            if "functionResponse" in found and _DATA.isdisjoint(found.keys() - _RESULT_KEY):
                rest = _meta_back(part, found, rest)
                value = found["functionResponse"]
                results.append(self.result(value, rest, f"{ppath}.functionResponse", index, j))
                order.append("t")
            else:
                others.append(self.user_found(part, found, rest, ppath))
                order.append("u")
        if not results:
            if not others:
                raise ValidationError("must not be empty", f"{path}.parts")
            if len(others) == 1 and type(others[0]) is TextPart and others[0].extras is None:
                content: Any = others[0].text or tuple(others)
            else:
                content = tuple(others)
            return [UserMessage(content, extras=extras_for(NAME, hints or None))], False
        first_hints: dict[str, Any] = {}
        if "~role" in hints:
            first_hints["~role"] = hints.pop("~role")
        if hints:
            first_hints["~content"] = hints
        if after:
            first_hints["~turn"] = "new"
        messages: list[Message] = list(results)
        if first_hints:
            first = results[0]
            messages[0] = msgspec.structs.replace(
                first, extras=extras_for(NAME, first_hints, first.extras)
            )
        if others:
            joined = {"~order": "".join(order)}
            messages.append(UserMessage(tuple(others), extras=extras_for(NAME, joined)))
            return messages, False
        return messages, True

    def contents(self, contents: list[Any]) -> list[Message]:
        messages: list[Message] = []
        results_only = False
        for i, content in enumerate(contents):
            path = f"$.contents[{i}]"
            content = expect_dict(content, path)
            parts = expect_list(content.get("parts"), f"{path}.parts")
            role = content.get("role", _ABSENT)
            hints = {key: value for key, value in content.items() if key not in _CONTENT}
            if role == "model":
                messages.append(self.assistant(parts, path, i, hints))
                results_only = False
                continue
            if role is not _ABSENT and type(role) is not str:
                raise ValidationError("must be a string", f"{path}.role")
            if role != "user":
                hints["~role"] = None if role is _ABSENT else role
            turn, results_only = self.user_turn(parts, path, i, hints, results_only)
            messages.extend(turn)
        return messages

    # -- request pieces ---------------------------------------------------

    def declaration(self, decl: Any, path: str, new: bool) -> Tool:
        decl = expect_dict(decl, path)
        found, rest = split(decl, _DECL, self.snakes)
        hints: dict[str, Any] = {"~tool": "new"} if new else {}
        keep: dict[str, Any] = dict(rest) if rest else {}
        description = found.get("description", _ABSENT)
        if description is None:
            keep["description"] = None
        elif description is _ABSENT:
            description = None
        schema = found.get("parametersJsonSchema", _ABSENT)
        gemini = found.get("parameters", _ABSENT)
        parameters = None
        if type(schema) is dict and schema.get("type") == "object":
            parameters = schema
            if gemini is not _ABSENT:
                keep["parameters"] = gemini
        else:
            if schema is not _ABSENT:
                keep[_spelled(decl, "parametersJsonSchema")] = schema
            if gemini is not _ABSENT:
                converted = from_gemini_schema(gemini) if type(gemini) is dict else None
                if (
                    converted is not None
                    and schema is _ABSENT
                    and converted[0].get("type") == "object"
                ):
                    parameters = converted[0]
                    hints["~params"] = converted[1]
                else:
                    keep["parameters"] = gemini
        name = found.get("name")
        try:
            if type(name) is not str or (description is not None and type(description) is not str):
                raise ValidationError("must be a string", f"{path}.name")
            return ToolDefinition(
                name,
                description,
                parameters,
                strict=False,
                extras=extras_for(NAME, {**keep, **hints} or None),
            )
        except ValidationError:
            return ProviderTool(
                NAME, Raw(_encode(decl)), extras=extras_for(NAME, {"~decl": True, **hints})
            )

    def tools(self, value: Any, extras: dict[str, Any]) -> tuple[Tool, ...]:
        if type(value) is dict:
            value = [value]
            extras["~tools"] = "object"
        tools: list[Tool] = []
        grouped = False
        for i, tool in enumerate(expect_list(value, "$.tools")):
            path = f"$.tools[{i}]"
            tool = expect_dict(tool, path)
            key = "functionDeclarations" if "functionDeclarations" in tool else None
            if key is None and "function_declarations" in tool:
                key = "function_declarations"
            declarations = tool.get(key) if key is not None else None
            if key is None or len(tool) != 1 or type(declarations) is not list or not declarations:
                tools.append(ProviderTool(NAME, Raw(_encode(tool))))
                grouped = False
                continue
            if key != "functionDeclarations":
                self.snakes.add(key)
            for j, decl in enumerate(declarations):
                tools.append(self.declaration(decl, f"{path}.{key}[{j}]", grouped and j == 0))
            grouped = True
        return tuple(tools)

    def tool_config(self, value: Any, extras: dict[str, Any]) -> ToolChoice | None:
        config = expect_dict(value, "$.toolConfig")
        found, rest = split(config, _TOOL_CONFIG, self.snakes)
        keep: dict[str, Any] = dict(rest) if rest else {}
        choice = None
        calling = found.get("functionCallingConfig", _ABSENT)
        mode = calling.get("mode") if type(calling) is dict else None
        if type(mode) is str and mode in _MODES:
            inner, inner_rest = split(calling, _CALLING, self.snakes)
            own: dict[str, Any] = dict(inner_rest) if inner_rest else {}
            names = inner.get("allowedFunctionNames", _ABSENT)
            if (
                mode == "ANY"
                and type(names) is list
                and len(names) == 1
                and type(names[0]) is str
                and names[0]
            ):
                choice = ToolChoice("tool", names[0], extras=extras_for(NAME, own or None))
            else:
                if names is not _ABSENT:
                    own[_spelled(calling, "allowedFunctionNames")] = names
                if mode == "VALIDATED":
                    own["~mode"] = mode
                choice = ToolChoice(_MODES[mode], extras=extras_for(NAME, own or None))  # type: ignore[arg-type]
        elif calling is not _ABSENT:
            keep[_spelled(config, "functionCallingConfig")] = calling
        if keep or choice is None:
            extras["toolConfig"] = keep
        return choice

    def generation(self, value: Any, fields: dict[str, Any], extras: dict[str, Any]) -> None:
        config = expect_dict(value, "$.generationConfig")
        found, rest = split(config, _GEN, self.snakes)
        keep: dict[str, Any] = dict(rest) if rest else {}
        used = 0

        def back(name: str) -> None:
            keep[_spelled(config, name)] = found[name]

        for name, field in (
            ("maxOutputTokens", "max_tokens"),
            ("temperature", "temperature"),
            ("topP", "top_p"),
        ):
            if name in found:
                number = found[name]
                if type(number) is int or (field != "max_tokens" and type(number) is float):
                    fields[field] = number
                    used += 1
                else:
                    back(name)
        if "stopSequences" in found:
            stop = found["stopSequences"]
            if type(stop) is list and all(type(item) is str for item in stop):
                fields["stop"] = tuple(stop)
                used += 1
            else:
                back("stopSequences")
        mime = found.get("responseMimeType")
        schema = found.get("responseJsonSchema", _ABSENT)
        gemini = found.get("responseSchema", _ABSENT)
        response_format = None
        if mime == "application/json":
            if schema is not _ABSENT:
                if type(schema) is dict:
                    response_format = ResponseFormat("json_schema", schema=schema)
            elif gemini is not _ABSENT:
                converted = from_gemini_schema(gemini) if type(gemini) is dict else None
                if converted is not None:
                    hint = {"~schema": converted[1]}
                    response_format = ResponseFormat(
                        "json_schema", schema=converted[0], extras=extras_for(NAME, hint)
                    )
            else:
                response_format = ResponseFormat("json_object")
        elif mime == "text/plain" and schema is _ABSENT and gemini is _ABSENT:
            response_format = ResponseFormat("text")
        if response_format is None:
            for name in ("responseMimeType", "responseJsonSchema", "responseSchema"):
                if name in found:
                    back(name)
        else:
            fields["response_format"] = response_format
            used += 1
            if schema is not _ABSENT and gemini is not _ABSENT:
                back("responseSchema")
        if keep or not used:
            extras["generationConfig"] = keep

    def system(self, value: Any) -> list[Message] | None:
        """System messages from ``systemInstruction``; ``None`` to keep it as sent."""
        if type(value) is not dict or not value.keys() <= _CONTENT:
            return None
        parts = value.get("parts")
        if type(parts) is not list or not parts:
            return None
        texts = []
        for part in parts:
            if type(part) is not dict or len(part) != 1:
                return None
            text = part.get("text")
            if type(text) is not str or not text:
                return None
            texts.append(text)
        messages: list[Message] = [SystemMessage(text) for text in texts]
        if "role" in value:
            messages[0] = SystemMessage(texts[0], extras={NAME: {"~role": value["role"]}})
        return messages

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
            hints = {key: value for key, value in content.items() if key not in _CONTENT}
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
        omitted = [name for name in _USAGE_ORDER[:2] if counts[_USAGE_ORDER.index(name)] is None]
        if omitted:
            keep["~omit"] = omitted
        return Usage(
            counts[0] or 0,
            counts[1] or 0,
            counts[2],
            counts[3],
            counts[4],
            extras=extras_for(NAME, keep or None),
        )


_USAGE_ORDER = (
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
)


def decode_request(body: bytes | str) -> Request:
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


def decode_response(body: bytes | str) -> Response:
    """Read a Gemini ``generateContent`` response body.

    One choice per candidate (``message`` is ``None`` for a candidate
    without parts); ``finishReason`` is normalized (``STOP`` with function
    calls is ``tool_calls``), names and proto numbers alike, and kept as sent
    in ``raw_finish_reason``.

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
