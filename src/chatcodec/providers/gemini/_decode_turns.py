"""Gemini's turns to canonical messages: parts, function calls and their results.

:class:`TurnDecoder` reads the ``contents`` of a request (and the parts of a
response's candidates) key by key. A ``model`` content becomes one assistant
message, a ``user`` content one tool message per ``functionResponse`` part
and one user message for the rest; calls without an id get one derived from
their place and content, and the results that answer them by name the same.
The helpers and constants shared with the other decode modules live here.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw

from ..._content import AudioPart, FilePart, ImagePart, OpaquePart, ReasoningPart, TextPart
from ..._errors import ValidationError
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, Message, ToolMessage, UserMessage
from ..._tools import InvalidToolCall, ToolCall
from .._wire import (
    base64_form,
    derive_id,
    expect_dict,
    expect_list,
    extras_for,
    leftover,
    to_standard_base64,
)
from ._common import B64, NAME, NO_MIME, NO_PARTS, mark_unsigned, snake, split, table

__all__ = ["TurnDecoder"]

_encode = msgspec.json.Encoder().encode
_ABSENT: Any = object()

_PART = FrozenMap(table(
    "text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall",
    "functionResponse",
))  # fmt: skip
_DATA = frozenset(("text", "inlineData", "fileData", "functionCall", "functionResponse"))
_MEDIA = FrozenMap(table("mimeType", "data", "fileUri"))
_CALL = FrozenMap(table("name", "args", "id"))
_RESULT = FrozenMap(table("name", "response", "id", "parts"))
_CONTENT = frozenset(("role", "parts"))
_RESULT_KEY = frozenset(("functionResponse",))
_WRAPS = frozenset(("result", "error"))
_NOT_OBJECT = "arguments are valid JSON but not an object"


def _spelled(obj: dict[str, Any], name: str) -> str:
    """The key ``obj`` spells ``name`` with."""
    return name if name in obj else snake(name)


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


class TurnDecoder:
    """One body's decode: the snake_case keys met and the open function calls."""

    __slots__ = ("cut", "layout", "pending", "snakes")

    def __init__(self, cut: dict[tuple[int, int], tuple[str, str]] | None = None) -> None:
        self.snakes: set[str] = set()
        # Calls a stream left unfinished, by (candidate, part): (text so far, why invalid).
        self.cut = cut
        # [id, name] of the calls of the last model turn not answered yet.
        self.pending: list[list[Any]] = []
        # What each part of the last model turn became: "c" content, "t" or "i" a call.
        self.layout: list[str] = []

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
        if mime is None and kind == "fileData":
            rest = {**rest, NO_MIME: 1} if rest else {NO_MIME: 1}  # none guessed within Gemini
        form = base64_form(source) if kind == "inlineData" else None
        if form is not None:
            # URL-safe or unpadded: the part holds standard base64, as every other
            # family writes it; Gemini gets its own spelling back.
            source = to_standard_base64(source)
            rest = {**rest, B64: form} if rest else {B64: form}
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
        self.layout = order
        if calls:
            mark_unsigned(calls)
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
        result_name: str | None = None
        if name is _ABSENT:
            extras["~name"] = "absent"
        elif matched is None or matched[1] != name:
            # The call gives the name back otherwise (the encoder looks it up).
            if type(name) is str and name:
                result_name = name
            else:
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
            call_id,
            content,
            is_error=error,
            name=result_name,
            extras=extras_for(NAME, extras or None),
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
            role = content.get("role", _ABSENT)
            hints = leftover(content, _CONTENT) or {}
            if role == "model" and "parts" not in content:
                # A model turn without parts (Gemini takes it): an empty answer, written
                # back without parts.
                parts: list[Any] = []
                hints[NO_PARTS] = 1
            else:
                parts = expect_list(content.get("parts"), f"{path}.parts")
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
