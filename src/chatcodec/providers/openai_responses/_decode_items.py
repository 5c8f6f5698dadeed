"""Responses items -> canonical messages (``input`` of a request, ``output`` of a response).

The wire is a flat list of items; the canonical form is a list of messages.
User, system and developer messages map one to one, and so do the outputs of
function and custom tool calls (tool messages). Everything the model made
(assistant ``message`` items, ``reasoning``, ``function_call`` and
``custom_tool_call``, built-in tool calls and any item chatcodec does not
model) is gathered, in order, into one assistant message per run of such
items: text and refusal parts, reasoning parts and opaque parts in position,
the calls after them. When a call sat before content, the message keeps the
order in its ``"~layout"`` hint, so the encoder writes the items back in
place. An item whose shape the canonical form cannot hold exactly is kept
whole as an opaque part.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..._content import (
    AssistantPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._errors import ValidationError
from ..._frozen import FrozenMap
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import InvalidToolCall, ToolCall, parse_tool_call
from .._wire import expect_dict
from ..openai._common import split_data_url
from ._cite import read_annotations
from ._common import (
    ABSENT,
    NAME,
    encode_json,
    extras,
    opaque,
    reasoning_text,
    rest,
    summary_lengths,
)

__all__ = [
    "Run",
    "answer_parts",
    "assistant_part",
    "kept_whole",
    "model_item",
    "read_items",
    "read_whole",
    "reads_as_call",
    "reasoning_part",
    "unsigned",
    "user_parts",
]

_MESSAGE = frozenset({"role", "content"})
_CALL = frozenset({"type", "call_id", "name", "arguments"})
_CUSTOM = frozenset({"type", "call_id", "name", "input"})
_OUTPUT = frozenset({"type", "call_id", "output"})
_REASONING = frozenset({"type", "summary", "encrypted_content"})
_TEXT = frozenset({"type", "text"})
_OUTPUT_TEXT = frozenset({"type", "text"})
_REFUSAL = frozenset({"type", "refusal"})
_IMAGE = frozenset({"type", "image_url", "detail"})
_FILE = frozenset({"type", "file_id", "file_url", "file_data", "filename"})
_DETAILS = frozenset({"auto", "low", "high"})
_INSTRUCTION_ROLES: Mapping[str, type[SystemMessage] | type[DeveloperMessage]] = FrozenMap(
    {
        "system": SystemMessage,
        "developer": DeveloperMessage,
    }
)


class Run:
    """The assistant side of the items between two user or tool items."""

    __slots__ = ("calls", "invalid", "layout", "parts", "str_item")

    def __init__(self) -> None:
        self.parts: list[AssistantPart] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.layout: list[str] = []
        # A lone message item whose content was a string: (text, its other keys).
        self.str_item: tuple[str, dict[str, Any]] | None = None

    def __bool__(self) -> bool:
        return bool(self.layout)

    def content(self, parts: list[AssistantPart]) -> None:
        self.parts += parts
        self.layout.append("p")

    def call(self, call_id: Any, name: Any, arguments: str | bytes, own: dict[str, Any]) -> bool:
        """Add a tool call, valid or not; False for a name a call may not have."""
        try:
            call = parse_tool_call(call_id, name, arguments)
        except ValidationError:
            return False
        if isinstance(call, ToolCall):
            self.calls.append(ToolCall(call.id, call.name, call.arguments, extras=extras(own)))
            self.layout.append("c")
        else:
            self.invalid.append(
                InvalidToolCall(call.id, call.name, call.arguments, call.error, extras=extras(own))
            )
            self.layout.append("x")
        return True

    def message(self) -> AssistantMessage:
        """The assistant message of the run."""
        own: dict[str, Any] = {}
        layout = "".join(self.layout)
        default = "p" * layout.count("p") + "c" * len(self.calls) + "x" * len(self.invalid)
        if layout != default:
            own["~layout"] = layout
        content: str | tuple[AssistantPart, ...] | None = tuple(self.parts) or None
        if self.str_item is not None and layout.count("p") == 1 and len(self.parts) == 1:
            text, item_own = self.str_item
            content = text
            own.update(item_own)
        return AssistantMessage(content, tuple(self.calls), tuple(self.invalid), extras=extras(own))


def read_items(items: list[Any], path: str) -> list[Message]:
    """The messages of a list of Responses items."""
    out: list[Message] = []
    run = Run()
    for i, value in enumerate(items):
        at = f"{path}[{i}]"
        item = expect_dict(value, at)
        kind = item.get("type")
        if kind is not None and type(kind) is not str:
            raise ValidationError("must be a string", f"{at}.type")
        role = item.get("role")
        if (kind is None or kind == "message") and type(role) is str and role != "assistant":
            message = _plain_message(item, role)
            if message is not None:
                if run:
                    out.append(run.message())
                    run = Run()
                out.append(message)
                continue
        elif kind == "function_call_output" or kind == "custom_tool_call_output":
            result = _tool_message(item, kind)
            if result is not None:
                if run:
                    out.append(run.message())
                    run = Run()
                out.append(result)
                continue
        model_item(item, kind, role, run)
    if run:
        out.append(run.message())
    return out


def model_item(item: dict[str, Any], kind: Any, role: Any, run: Run) -> None:
    """Add an item the model made to ``run``: in its place, or kept whole as an opaque part."""
    if (kind is None or kind == "message") and role == "assistant":
        _assistant_item(item, run)
        return
    if kind == "function_call" or kind == "custom_tool_call":
        if _call(item, kind, run):
            return
    elif kind == "reasoning":
        part = reasoning_part(item)
        if part is not None:
            run.content([part])
            return
    run.content([opaque(item)])


def _plain_message(item: dict[str, Any], role: str) -> Message | None:
    """A user, system or developer message item, or None to keep it opaque."""
    content = item.get("content")
    own = rest(item, _MESSAGE)
    if role == "user":
        if type(content) is str and content:
            return UserMessage(content, extras=extras(own))
        if type(content) is list and content:
            parts = user_parts(content)
            if parts is not None:
                return UserMessage(tuple(parts), extras=extras(own))
        return None
    kind = _INSTRUCTION_ROLES.get(role)
    if kind is None:
        return None
    own["~input"] = 1
    if type(content) is str and content:
        return kind(content, extras=extras(own))
    if type(content) is list and content:
        texts = []
        for part in content:
            if type(part) is not dict or part.keys() != _TEXT or part["type"] != "input_text":
                return None
            if type(part["text"]) is not str:
                return None
            texts.append(part["text"])
        if "".join(texts):
            own["~parts"] = [len(text) for text in texts]
            return kind("".join(texts), extras=extras(own))
    return None


def user_parts(content: list[Any]) -> list[ContentPart] | None:
    """The parts of a user message or a tool output, or None if one is not an object."""
    parts: list[ContentPart] = []
    for value in content:
        if type(value) is not dict:
            return None
        parts.append(_user_part(value))
    return parts


def _user_part(part: dict[str, Any]) -> ContentPart:
    kind = part.get("type")
    if kind == "input_text" and type(part.get("text")) is str:
        return TextPart(part["text"], extras=extras(rest(part, _TEXT)))
    if kind == "input_image":
        image = _image(part)
        if image is not None:
            return image
    elif kind == "input_file":
        file = _file(part)
        if file is not None:
            return file
    return opaque(part)


def _image(part: dict[str, Any]) -> ImagePart | None:
    url = part.get("image_url")
    detail = part.get("detail", ABSENT)
    if type(url) is not str or not (
        detail is ABSENT or (type(detail) is str and detail in _DETAILS)
    ):
        return None
    own = rest(part, _IMAGE)
    if detail is ABSENT:
        own["~detail"] = 1
        detail = None
    split = split_data_url(url)
    if split is not None:
        own["~url"] = 1
        return ImagePart(data=split[1], media_type=split[0], detail=detail, extras=extras(own))
    return ImagePart(url=url, detail=detail, extras=extras(own))


def _file(part: dict[str, Any]) -> FilePart | None:
    sources = [key for key in ("file_id", "file_url", "file_data") if key in part]
    filename = part.get("filename")
    if len(sources) != 1 or (filename is not None and type(filename) is not str):
        return None
    value = part[sources[0]]
    if type(value) is not str:
        return None
    own = rest(part, _FILE)
    if "filename" in part and filename is None:
        own["filename"] = None
    if sources[0] == "file_id":
        return FilePart(file_id=value, filename=filename, extras=extras(own))
    if sources[0] == "file_url":
        return FilePart(url=value, filename=filename, extras=extras(own))
    split = split_data_url(value)
    if split is not None:
        own["~url"] = 1
        return FilePart(data=split[1], media_type=split[0], filename=filename, extras=extras(own))
    return FilePart(data=value, filename=filename, extras=extras(own))


def answer_parts(item: dict[str, Any]) -> bool:
    """Whether ``item`` is read as an assistant message, part by part.

    An item of type ``message`` (or of none) whose role is ``assistant`` and
    whose content is a list of objects: each is a part of the answer. The
    stream writer writes such an item's text as events, and the stream
    decoder reads the events so; any other message item goes whole.
    """
    kind = item.get("type")
    if (kind is not None and kind != "message") or item.get("role") != "assistant":
        return False
    content = item.get("content")
    return type(content) is list and bool(content) and all(type(p) is dict for p in content)


def kept_whole(item: dict[str, Any]) -> bool:
    """Whether a message item (type ``message`` or none) is read as one opaque part.

    So it is when it is neither an answer (its content text, or parts) nor
    a user, system or developer message of a shape the reader takes.
    """
    role = item.get("role")
    if role == "assistant":
        return type(item.get("content")) is not str and not answer_parts(item)
    if type(role) is str:
        return _plain_message(item, role) is None
    return True


def read_whole(item: dict[str, Any]) -> bool:
    """Whether the reader keeps an output item whole, as one opaque part."""
    kind = item.get("type")
    if kind is None or kind == "message":
        return kept_whole(item)
    if kind == "function_call" or kind == "custom_tool_call":
        return not reads_as_call(item)
    if kind == "reasoning":
        return reasoning_part(item) is None
    if kind == "function_call_output" or kind == "custom_tool_call_output":
        return _tool_message(item, kind) is None
    return True


def reads_as_call(item: dict[str, Any]) -> bool:
    """Whether a ``function_call`` or ``custom_tool_call`` item is read as a call (else whole)."""
    kind = item.get("type")
    return (kind == "function_call" or kind == "custom_tool_call") and _call(item, kind, Run())


def _assistant_item(item: dict[str, Any], run: Run) -> None:
    content = item.get("content")
    item_own = rest(item, _MESSAGE)
    if type(content) is str:
        if not run and run.str_item is None:
            run.str_item = (content, item_own)
        own = _item_keys(item_own, {})
        own["~item"]["~str"] = 1
        run.content([TextPart(content, extras=extras(own))])
        return
    if not answer_parts(item):
        run.content([opaque(item)])
        return
    parts = [assistant_part(part) for part in item["content"]]
    first = parts[0]
    parts[0] = _with_extras(first, _item_keys(item_own, first.extras[NAME] if first.extras else {}))
    run.content(parts)


_PLACE = frozenset({"id", "status", "type"})


def _item_keys(item_own: dict[str, Any], part_own: dict[str, Any]) -> dict[str, Any]:
    """The first part's extras: its own keys, and its item's under ``"~item"``.

    Keys that only place the item (id, status, type) go in the hint; the
    others (``phase``...) sit beside the part's keys, named in ``"~keys"``, so
    that another family's encoder reports them.
    """
    own = dict(part_own)
    hint: dict[str, Any] = {}
    keys: list[str] = []
    for key, value in item_own.items():
        if key in _PLACE or key in own or (key[:1] == "~" and key[:2] != "~~"):
            hint[key] = value
        else:
            own[key] = value
            keys.append(key)
    if keys:
        hint["~keys"] = keys
    own["~item"] = hint
    return own


def _with_extras(part: AssistantPart, own: dict[str, Any]) -> AssistantPart:
    return msgspec.structs.replace(part, extras={NAME: own})


def assistant_part(part: dict[str, Any]) -> AssistantPart:
    """The canonical part of an assistant message item's content part."""
    kind = part.get("type")
    if kind == "output_text" and type(part.get("text")) is str:
        own = rest(part, _OUTPUT_TEXT)
        if "annotations" not in part:
            own["~noann"] = 1
        citations = read_annotations(own.get("annotations"))
        if citations is not None:
            del own["annotations"]
            return TextPart(part["text"], citations, extras=extras(own))
        return TextPart(part["text"], extras=extras(own))
    if kind == "refusal" and type(part.get("refusal")) is str:
        return RefusalPart(part["refusal"], extras=extras(rest(part, _REFUSAL)))
    inner = opaque(part)
    return _with_extras(inner, {"~in": 1})


def _call(item: dict[str, Any], kind: str, run: Run) -> bool:
    call_id = item.get("call_id")
    name = item.get("name")
    if type(call_id) is not str or not call_id or type(name) is not str or not name:
        return False
    own = rest(item, _CALL if kind == "function_call" else _CUSTOM)
    if kind == "custom_tool_call":
        text = item.get("input")
        if type(text) is not str:
            return False
        own["~custom"] = 1
        arguments: str | bytes = encode_json({"input": text})
    else:
        raw = item.get("arguments")
        if type(raw) is not str:
            return False
        arguments = raw
    return run.call(call_id, name, arguments, own)


def unsigned(signature: Any) -> bool:
    """Whether a reasoning item's ``encrypted_content`` keeps it whole: neither text nor null."""
    return signature is not None and type(signature) is not str


def reasoning_part(item: dict[str, Any]) -> ReasoningPart | None:
    """A reasoning item's part, or None when the reader keeps the item whole."""
    own = rest(item, _REASONING)
    summary = item.get("summary", ABSENT)
    texts: list[str] = []
    if type(summary) is list and all(
        type(s) is dict
        and s.keys() == _TEXT
        and s["type"] == "summary_text"
        and type(s["text"]) is str
        for s in summary
    ):
        texts = [s["text"] for s in summary]
        summary_lengths(texts, own)
    elif summary is ABSENT:
        own["~summary"] = None
    else:
        own["summary"] = summary
    signature = item.get("encrypted_content")
    if unsigned(signature):
        return None
    if signature is None and "encrypted_content" in item:
        own["encrypted_content"] = None
    text = reasoning_text(texts, own)
    return ReasoningPart(text, signature=signature, provider=NAME, extras=extras(own))


def _tool_message(item: dict[str, Any], kind: str) -> ToolMessage | None:
    call_id = item.get("call_id")
    if type(call_id) is not str or not call_id:
        return None
    own = rest(item, _OUTPUT)
    if kind == "custom_tool_call_output":
        own["~custom"] = 1
    output = item.get("output", ABSENT)
    content: str | tuple[ContentPart, ...]
    if type(output) is str:
        content = output
    elif type(output) is list:
        parts = user_parts(output)
        if parts is None:
            return None
        content = tuple(parts)
        own["~output"] = "parts"
    else:
        return None
    return ToolMessage(call_id, content, extras=extras(own))
