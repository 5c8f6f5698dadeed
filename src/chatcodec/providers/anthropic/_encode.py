"""Canonical values -> Anthropic Messages wire.

The canonical fields are the data; the anthropic extras only fill the gaps
they leave (:func:`~chatcodec.providers._wire.fill`), and the hints described
in ``_decode`` restore the wire's turn structure and block order.

Messages from another source are fitted to Anthropic's rules: leading system
and developer messages become the top-level ``system``, later ones stay in
place as ``system`` turns (Anthropic takes them in ``messages``); consecutive
messages of the same wire role share one turn, tool results first; tool ids
that Anthropic would refuse are rewritten the same way in the call and in its
result (``derive_id``), which loses nothing.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ..._content import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    McpResource,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._exchange import ProviderTool, Request, Response, Tool
from ..._loss import Loss
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._tools import InvalidToolCall, ToolCall
from ..._usage import FinishReason, Usage
from .._lower import DENIED_RESULT, lower
from .._wire import Encoding, derive_id, encode_body, fill
from ._decode import FINISH, NAME, text_source

IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image types Anthropic takes."""

_ID = re.compile(r"[a-zA-Z0-9_-]+")
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.S)
_STOP = {
    FinishReason.STOP: "end_turn",
    FinishReason.LENGTH: "max_tokens",
    FinishReason.TOOL_CALLS: "tool_use",
    FinishReason.CONTENT_FILTER: "refusal",
}
_MODES = {"auto": "auto", "required": "any", "tool": "tool", "none": "none"}
_SYSTEM = (SystemMessage, DeveloperMessage)
_KEEP = frozenset({McpResource})  # written by _Writer.part, as a document


_WIRE_IDS: dict[str, str] = {}  # wire_id's answers: each id comes twice (call, result)


def wire_id(id: str) -> str:
    """``id`` if Anthropic takes it, else a derived id (the same for call and result)."""
    found = _WIRE_IDS.get(id)
    if found is not None:
        return found
    found = id if _ID.fullmatch(id) else derive_id("toolu_", id)
    if len(_WIRE_IDS) >= 4096:
        _WIRE_IDS.clear()
    _WIRE_IDS[id] = found
    return found


def _json_or_none(text: str) -> msgspec.Raw | None:
    data = text.encode("utf-8", "surrogatepass")
    try:
        msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeError):
        return None
    return msgspec.Raw(data)


class _Writer:
    """One encode: the losses, and whether it writes a request (stricter rules)."""

    __slots__ = ("enc", "request")

    def __init__(self, enc: Encoding, request: bool) -> None:
        self.enc = enc
        self.request = request

    # --- blocks -----------------------------------------------------------

    def text(self, text: str, own: dict[str, Any], path: str, out: list[Any]) -> None:
        if not text and self.request and not own.get("~keep"):
            self.enc.lose(path, "anthropic refuses an empty text block")
            return
        out.append(fill({"type": "text", "text": text}, own))

    def opaque(self, part: OpaquePart, path: str, out: list[Any]) -> None:
        if part.provider == NAME:
            out.append(part.data)
        else:
            self.enc.lose(path, f"anthropic cannot carry a {part.provider} block")

    def part(self, part: ContentPart, path: str, out: list[Any]) -> None:
        """A part of a user turn or of a tool result."""
        own = self.enc.own(part.extras, path)
        if type(part) is TextPart:
            self.text(part.text, own, path, out)
        elif type(part) is ImagePart:
            source = self.source(part.url, part.data, part.media_type, path)
            if part.detail is not None:
                self.enc.lose(path + ".detail", "anthropic images have no detail setting")
            if source is not None:
                out.append(fill({"type": "image", "source": source}, own))
        elif type(part) is FilePart:
            if part.filename is not None:
                self.enc.lose(path + ".filename", "anthropic documents have no file name")
            block = self.file(part, path)
            if block is not None:
                out.append(fill(block, own))
        elif type(part) is OpaquePart:
            self.opaque(part, path, out)
        elif type(part) is AudioPart:
            self.enc.lose(path, "anthropic cannot carry an audio part")
        elif type(part) is McpResource:
            # A text document titled with the URI; its text alone when empty,
            # as Anthropic may refuse an empty document.
            if part.content:
                source = {"type": "text", "media_type": "text/plain", "data": part.content}
                block = {"type": "document", "source": source, "title": part.uri}
                out.append(fill(block, own))
            else:
                self.text(part.text, own, path, out)
        else:
            self.enc.lose(path, f"anthropic cannot carry a {type(part).__name__}")

    def file(self, part: FilePart, path: str) -> dict[str, Any] | None:
        """A document block (an image block for an image file), or None if lost."""
        media_type, data = part.media_type, part.data
        if part.file_id is not None:
            return {"type": "document", "source": {"type": "file", "file_id": part.file_id}}
        if media_type in IMAGE_TYPES:
            source = self.source(part.url, data, media_type, path)
            return None if source is None else {"type": "image", "source": source}
        if data is not None and media_type is not None and media_type.startswith("text/"):
            text = text_source(data)
            if text is not None:
                if media_type != "text/plain":
                    self.enc.lose(path + ".media_type", "anthropic takes text files as text/plain")
                source = {"type": "text", "media_type": "text/plain", "data": text}
                return {"type": "document", "source": source}
        elif media_type in (None, "application/pdf") and (data is None or media_type):
            source = self.source(part.url, data, media_type, path)
            return None if source is None else {"type": "document", "source": source}
        self.enc.lose(path, f"anthropic cannot carry a {media_type or 'untyped'} file")
        return None

    def source(
        self, url: str | None, data: str | None, media_type: str | None, path: str
    ) -> dict[str, Any] | None:
        if data is not None:
            source = {"type": "base64", "media_type": media_type, "data": data}
            if media_type is None:
                del source["media_type"]
            return source
        assert url is not None
        if url.startswith("data:"):
            match = _DATA_URL.fullmatch(url)
            if match is None:
                self.enc.lose(path, "anthropic takes only base64 data URLs")
                return None
            return {"type": "base64", "media_type": match[1], "data": match[2]}
        return {"type": "url", "url": url}

    def reasoning(
        self, part: ReasoningPart, own: dict[str, Any], path: str, out: list[Any]
    ) -> None:
        if part.provider != NAME:
            self.enc.lose(path, "anthropic cannot carry reasoning that it did not sign")
            return
        if part.redacted is not None:
            out.append(fill({"type": "redacted_thinking", "data": part.redacted}, own))
            return
        block: dict[str, Any] = {"type": "thinking", "thinking": part.text}
        if part.signature is not None:
            block["signature"] = part.signature
        out.append(fill(block, own))

    def tool_use(self, call: ToolCall | InvalidToolCall, path: str) -> dict[str, Any] | None:
        own = self.enc.own(call.extras, path)
        if type(call) is ToolCall:
            block: dict[str, Any] = {"type": "tool_use", "id": wire_id(call.id)}
            block["name"] = call.name
            block["input"] = call.arguments
            return fill(block, own)
        assert isinstance(call, InvalidToolCall)
        if call.name is None and "name" not in own:
            self.enc.lose(path, "anthropic cannot carry a tool call without a name")
            return None
        block = {"type": "tool_use"}
        if call.id is not None:
            block["id"] = wire_id(call.id)
        elif "id" not in own:
            block["id"] = derive_id("toolu_", path, call.name, call.arguments)
        if call.name is not None:
            block["name"] = call.name
        if not (call.arguments == "" and own.get("~input") == "absent"):
            raw = _json_or_none(call.arguments)
            if raw is None:
                self.enc.lose(path + ".arguments", "anthropic needs JSON tool input: sent {}")
                raw = msgspec.Raw(b"{}")
            block["input"] = raw
        return fill(block, own)

    def assistant(self, message: AssistantMessage, own: dict[str, Any], path: str) -> list[Any]:
        if not own and not message.invalid_tool_calls:
            blocks = self.plain_assistant(message, path)
            if blocks is not None:
                return blocks
        content = message.content
        slots: list[list[Any]] = []
        if type(content) is str:
            slot: list[Any] = []
            self.text(content, {}, path + ".content", slot)
            slots.append(slot)
        elif content is not None:
            for k, part in enumerate(content):
                where = f"{path}.content[{k}]"
                slot = []
                if type(part) is TextPart:
                    self.text(part.text, self.enc.own(part.extras, where), where, slot)
                elif type(part) is ReasoningPart:
                    self.reasoning(part, self.enc.own(part.extras, where), where, slot)
                elif type(part) is OpaquePart:
                    self.enc.own(part.extras, where)
                    self.opaque(part, where, slot)
                elif type(part) is RefusalPart:
                    self.enc.lose(where, "anthropic has no refusal block: sent as text")
                    self.text(part.text, self.enc.own(part.extras, where), where, slot)
                else:
                    self.enc.lose(where, f"anthropic cannot carry a {type(part).__name__}")
                slots.append(slot)
        calls = [
            self.tool_use(call, f"{path}.tool_calls[{k}]")
            for k, call in enumerate(message.tool_calls)
        ]
        invalid = [
            self.tool_use(call, f"{path}.invalid_tool_calls[{k}]")
            for k, call in enumerate(message.invalid_tool_calls)
        ]
        order = own.get("~order")
        if (
            type(order) is str
            and order.count("c") == len(slots)
            and order.count("t") == len(calls)
            and order.count("i") == len(invalid)
            and len(order) == len(slots) + len(calls) + len(invalid)
        ):
            queues = {
                "c": iter(slots),
                "t": iter([[c] for c in calls]),
                "i": iter([[c] for c in invalid]),
            }
            ordered = [next(queues[kind]) for kind in order]
        else:
            ordered = [*slots, *([c] for c in calls), *([c] for c in invalid)]
        return [block for slot in ordered for block in slot if block is not None]

    def plain_assistant(self, message: AssistantMessage, path: str) -> list[Any] | None:
        """The blocks of an answer without extras or invalid calls, when its parts are plain.

        Plain: text that is not empty, without extras (what :meth:`assistant`
        writes the same way, with no hint to follow). ``None`` otherwise.
        """
        content = message.content
        blocks: list[Any] = []
        if type(content) is str:
            if not content:
                return None
            blocks.append({"type": "text", "text": content})
        elif content is not None:
            for part in content:
                if type(part) is not TextPart or part.extras or not part.text:
                    return None
                blocks.append({"type": "text", "text": part.text})
        for k, call in enumerate(message.tool_calls):
            if call.extras:
                blocks.append(self.tool_use(call, f"{path}.tool_calls[{k}]"))
            else:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": wire_id(call.id),
                        "name": call.name,
                        "input": call.arguments,
                    }
                )
        return blocks

    def tool_result(self, message: ToolMessage, own: dict[str, Any], path: str) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": wire_id(message.tool_call_id),
        }
        content = message.content
        if type(content) is str:
            if content or own.get("~content") != "absent":
                block["content"] = content
        else:
            parts: list[Any] = []
            for k, item in enumerate(content):
                assert not isinstance(item, str)
                self.part(item, f"{path}.content[{k}]", parts)
            block["content"] = parts
        if message.is_error:
            block["is_error"] = True
        return fill(block, own)

    # --- messages -----------------------------------------------------------

    def messages(self, messages: tuple[Message, ...]) -> tuple[Any, list[Any]]:
        """The top-level ``system`` (None when there is none) and the turns."""
        for message in messages:
            if message.extras:
                break
        else:
            plain = self.plain_messages(messages)
            if plain is not None:
                return plain
        own_of = self.enc.own
        owns = [
            own_of(m.extras, f"$.messages[{k}]") if m.extras else {} for k, m in enumerate(messages)
        ]
        n = len(messages)
        start = 0
        system: list[Any] = []
        blocks_form = False
        while start < n and type(messages[start]) in _SYSTEM and not owns[start].get("~turn"):
            own = owns[start]
            message = messages[start]
            assert isinstance(message, _SYSTEM)
            system.append(fill({"type": "text", "text": message.content}, own))
            blocks_form = blocks_form or own.get("~form") == "blocks"
            start += 1
        groups: list[tuple[str, list[int]]] = []
        for k in range(start, n):
            message, own = messages[k], owns[k]
            kind = type(message)
            if kind is AssistantMessage:
                assert isinstance(message, AssistantMessage)
                if k != n - 1 and not own and _empty(message):
                    # Another provider's empty answer: Anthropic takes one only at the end.
                    self.enc.lose(f"$.messages[{k}]", "an empty assistant message before the end")
                    continue
                role = "assistant"
            elif kind is UserMessage:
                role = "system" if own.get("~role") == "system" else "user"
            elif kind is ToolMessage:
                role = "user"
            else:
                role = "system"
            if not groups or groups[-1][0] != role or own.get("~turn"):
                groups.append((role, [k]))
            else:
                groups[-1][1].append(k)
        turns = []
        for g, (role, members) in enumerate(groups):
            if len(members) == 1 and not owns[members[0]]:
                # The usual turn: one message of plain text, no extras.
                message = messages[members[0]]
                text: Any = message.content
                if type(text) is str and (
                    type(message) is UserMessage
                    or (
                        type(message) is AssistantMessage
                        and not message.tool_calls
                        and not message.invalid_tool_calls
                    )
                ):
                    turns.append({"role": role, "content": text})
                    continue
            turn = self.turn(role, members, messages, owns)
            if (
                turn is not None
                and role == "assistant"
                and g != len(groups) - 1
                and not turn["content"]
                and any(messages[k].content for k in members)
            ):
                # Every part was lost (and reported): Anthropic refuses an empty turn.
                self.enc.lose(f"$.messages[{members[0]}]", "an assistant turn left empty")
                continue
            if turn is not None:
                turns.append(turn)
        value: Any = None
        if len(system) == 1 and not blocks_form and len(system[0]) == 2:
            value = system[0]["text"]
        elif system:
            value = system
        return value, turns

    def plain_messages(self, messages: tuple[Message, ...]) -> tuple[Any, list[Any]] | None:
        """:meth:`messages` in one pass, for messages none of which has extras.

        No hint to follow, so the turns are the runs of one wire role. ``None``
        when a message is not plain (parts other than text, an empty text, a
        call with extras...) or something would be lost: the general path
        writes those.
        """
        n = len(messages)
        start = 0
        system: list[str] = []
        while start < n and type(messages[start]) in _SYSTEM:
            system.append(messages[start].content)  # type: ignore[arg-type]
            start += 1
        turns: list[Any] = []
        last = ""  # the open turn's role
        turn: dict[str, Any] = {}
        blocks: list[Any] | None = None  # the open turn's blocks; None: its content is a string
        joined = False  # the open turn holds several messages
        ids = _WIRE_IDS  # wire_id's cache, read inline: each id is looked up twice
        for k in range(start, n):
            # Any: the kind tests below are on type(), which mypy does not narrow by.
            message: Any = messages[k]
            kind = type(message)
            text: Any = message.content
            if kind is AssistantMessage:
                if message.invalid_tool_calls:
                    return None
                calls = message.tool_calls
                if not calls and k != n - 1 and _empty(message):
                    return None  # left out, and reported, by the general path
                role = "assistant"
                string = not calls and type(text) is str
            elif kind is UserMessage:
                role = "user"
                string = type(text) is str
            else:
                role = "user" if kind is ToolMessage else "system"
                string = False
            if role != last:
                if blocks is not None:
                    if not blocks:
                        return None
                    if joined and last == "user":
                        turn["content"] = _results_first(blocks)
                last = role
                joined = False
                if string:
                    turn = {"role": role, "content": text}
                    turns.append(turn)
                    blocks = None
                    continue
                blocks = []
                turn = {"role": role, "content": blocks}
                turns.append(turn)
            else:
                joined = True
                if blocks is None:
                    # The turn's first message, so far its content as a string.
                    first = turn["content"]
                    if not first:
                        return None
                    blocks = [{"type": "text", "text": first}]
                    turn["content"] = blocks
            if kind is ToolMessage:
                if type(text) is not str:
                    return None
                call_id = message.tool_call_id
                block: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": ids.get(call_id) or wire_id(call_id),
                    "content": text,
                }
                if message.is_error:
                    block["is_error"] = True
                blocks.append(block)
            elif kind is AssistantMessage:
                # plain_assistant, inline: text blocks, then the calls (none with extras).
                if type(text) is str:
                    if not text:
                        return None
                    blocks.append({"type": "text", "text": text})
                elif text is not None:
                    for part in text:
                        if type(part) is not TextPart or part.extras or not part.text:
                            return None
                        blocks.append({"type": "text", "text": part.text})
                for call in calls:
                    if call.extras:
                        return None  # before anything is reported: nothing is written twice
                    call_id = call.id
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": ids.get(call_id) or wire_id(call_id),
                            "name": call.name,
                            "input": call.arguments,
                        }
                    )
            else:
                if type(text) is not str or not text:
                    return None
                blocks.append({"type": "text", "text": text})
        if blocks is not None:
            if not blocks:
                return None
            if joined and last == "user":
                turn["content"] = _results_first(blocks)
        value: Any = None
        if len(system) == 1:
            value = system[0]
        elif system:
            value = [{"type": "text", "text": text} for text in system]
        return value, turns

    def turn(
        self,
        role: str,
        members: list[int],
        messages: tuple[Message, ...],
        owns: list[dict[str, Any]],
    ) -> dict[str, Any] | None:
        first, own = messages[members[0]], owns[members[0]]
        kind = type(first)
        keys = own if kind is UserMessage or kind is AssistantMessage else own.get("~message")
        turn: dict[str, Any] = {"role": role}
        content: Any = _string_content(first, own) if len(members) == 1 else None
        if content is None:
            blocks: list[Any] = []
            for k in members:
                message, mine = messages[k], owns[k]
                if type(message) is ToolMessage:
                    if not mine and type(message.content) is str:
                        # The usual result: text, no extras (tool_result, inline).
                        block: dict[str, Any] = {
                            "type": "tool_result",
                            "tool_use_id": wire_id(message.tool_call_id),
                            "content": message.content,
                        }
                        if message.is_error:
                            block["is_error"] = True
                        blocks.append(block)
                    else:
                        blocks.append(self.tool_result(message, mine, f"$.messages[{k}]"))
                elif type(message) is AssistantMessage:
                    blocks.extend(self.assistant(message, mine, f"$.messages[{k}]"))
                elif type(message) is UserMessage:
                    body = message.content
                    if type(body) is str:
                        if body:
                            blocks.append({"type": "text", "text": body})
                        else:
                            self.text(body, {}, f"$.messages[{k}].content", blocks)
                    else:
                        for j, item in enumerate(body):
                            assert not isinstance(item, str)
                            if type(item) is TextPart and not item.extras and item.text:
                                blocks.append({"type": "text", "text": item.text})
                            else:
                                self.part(item, f"$.messages[{k}].content[{j}]", blocks)
                else:
                    assert isinstance(message, _SYSTEM)
                    self.text(message.content, mine, f"$.messages[{k}]", blocks)
            if not blocks and role != "assistant":
                return None  # everything in it was lost, and Anthropic refuses an empty turn
            if role == "user" and len(members) > 1 and own.get("~order") != "wire":
                blocks = _results_first(blocks)
            content = blocks
        turn["content"] = content
        if keys and type(keys) is dict:
            fill(turn, keys)
        return turn


def _empty(message: AssistantMessage) -> bool:
    """An answer with no calls and no text (Anthropic refuses it before the end)."""
    if message.tool_calls or message.invalid_tool_calls:
        return False
    content = message.content
    if not content or type(content) is str:
        return not content
    return all(type(part) is TextPart and not part.text for part in content)


def _string_content(message: Message, own: dict[str, Any]) -> str | None:
    """The turn's content as a string, when the wire sent it so (or could)."""
    kind = type(message)
    if kind is UserMessage:
        content: Any = message.content
        return content if type(content) is str else None
    if type(message) is AssistantMessage:
        if message.tool_calls or message.invalid_tool_calls:
            return None
        content = message.content
        return content if type(content) is str else None
    if kind in _SYSTEM and own.get("~form") == "string":
        return str(getattr(message, "content", ""))
    return None


def _results_first(blocks: list[Any]) -> list[Any]:
    results = [b for b in blocks if type(b) is dict and b.get("type") == "tool_result"]
    if not results or len(results) == len(blocks):
        return blocks
    return results + [b for b in blocks if not (type(b) is dict and b.get("type") == "tool_result")]


# --- requests ---------------------------------------------------------------


def _tool(writer: _Writer, tool: Tool, path: str) -> Any:
    if type(tool) is ProviderTool:
        if tool.provider == NAME:
            return tool.data
        writer.enc.lose(path, f"anthropic cannot run a {tool.provider} tool")
        return None
    assert not isinstance(tool, ProviderTool)
    if not tool.extras and not tool.strict:
        # The usual tool, without extras: nothing to fill, the schema as is.
        schema = tool.parameters or tool.emitted_parameters()
        if tool.description is None:
            return {"name": tool.name, "input_schema": schema}
        return {"name": tool.name, "description": tool.description, "input_schema": schema}
    own = writer.enc.own(tool.extras, path)
    out: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    out["input_schema"] = tool.emitted_parameters()
    if tool.strict:
        out["strict"] = True
    return fill(out, own) if own else out


def encode_request(
    request: Request,
    losses: list[Loss] | None = None,
    *,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
) -> bytes:
    """Write a request body (see the package docstring)."""
    enc = Encoding(NAME, losses)
    request = lower(request, enc, vision=vision, denied_result=denied_result, keep=_KEEP)
    writer = _Writer(enc, True)
    own = enc.own(request.extras, "$")
    out: dict[str, Any] = {}
    if request.model is not None:
        out["model"] = request.model
    if request.max_tokens is not None:
        out["max_tokens"] = request.max_tokens
    system, turns = writer.messages(request.messages)
    if system is not None:
        out["system"] = system
    out["messages"] = turns
    sent: list[Any] = []
    if request.tools:
        tools = [_tool(writer, tool, f"$.tools[{k}]") for k, tool in enumerate(request.tools)]
        sent = [tool for tool in tools if tool is not None]
        if sent:
            out["tools"] = sent
    choice, parallel = request.tool_choice, request.parallel_tool_calls
    if choice is not None and len(sent) < len(request.tools):
        # Tools were left out (another provider's server tools): a choice that
        # needs them would be refused.
        names = {tool.get("name") for tool in sent if type(tool) is dict}
        if (choice.mode == "required" and not sent) or (
            choice.mode == "tool" and choice.name not in names
        ):
            enc.lose("$.tool_choice", "a tool choice for tools anthropic cannot run")
            choice = None
    if choice is not None:
        wire: dict[str, Any] = {"type": _MODES[choice.mode]}
        if choice.name is not None:
            wire["name"] = choice.name
        if parallel is not None:
            wire["disable_parallel_tool_use"] = not parallel
        out["tool_choice"] = fill(wire, enc.own(choice.extras, "$.tool_choice"))
    elif parallel is False and request.tools:
        out["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.top_p is not None:
        out["top_p"] = request.top_p
    if request.stop is not None:
        out["stop_sequences"] = list(request.stop)
    if request.stream is not None:
        out["stream"] = request.stream
    fmt = request.response_format
    if fmt is not None:
        mine = enc.own(fmt.extras, "$.response_format")
        if fmt.type == "json_schema" and fmt.schema is not None:
            config = own.get("output_config")
            config = dict(config) if type(config) is dict else {}
            config["format"] = fill({"type": "json_schema", "schema": fmt.schema}, mine)
            out["output_config"] = config
            if fmt.name is not None:
                enc.lose("$.response_format.name", "anthropic output formats have no name")
        elif fmt.type != "text":
            enc.lose("$.response_format", "anthropic has no JSON output without a schema")
    return encode_body(fill(out, own) if own else out)


# --- responses --------------------------------------------------------------


def _stop_reason(finish: FinishReason | None, raw: str | int | None, enc: Encoding) -> Any:
    if type(raw) is str and (FINISH.get(raw) == finish or finish is FinishReason.OTHER):
        return raw
    if finish is None:
        return None
    reason = _STOP.get(finish)
    if reason is None:
        enc.lose("$.choices[0].finish_reason", f"anthropic has no stop reason for {finish.value}")
    return reason


def _usage(usage: Usage, enc: Encoding) -> dict[str, Any]:
    own = enc.own(usage.extras, "$.usage")
    created = own.get("cache_creation_input_tokens")
    created = created if type(created) is int else 0
    cached = usage.cached_tokens or 0
    out: dict[str, Any] = {
        "input_tokens": max(usage.prompt_tokens - cached - created, 0),
        "output_tokens": usage.completion_tokens,
    }
    if usage.cached_tokens is not None:
        out["cache_read_input_tokens"] = usage.cached_tokens
    if usage.reasoning_tokens is not None:
        details = own.get("output_tokens_details")
        details = dict(details) if type(details) is dict else {}
        details["thinking_tokens"] = usage.reasoning_tokens
        out["output_tokens_details"] = details
    total = usage.total_tokens
    if total is not None and total != usage.prompt_tokens + usage.completion_tokens:
        enc.lose("$.usage.total_tokens", "anthropic reports no total apart from its parts")
    return fill(out, own)


def encode_response(response: Response, losses: list[Loss] | None = None) -> bytes:
    """Write a response body (see the package docstring)."""
    enc = Encoding(NAME, losses)
    writer = _Writer(enc, False)
    own = enc.own(response.extras, "$")
    out: dict[str, Any] = {}
    if response.id is not None:
        out["id"] = response.id
    out["type"] = own.get("type", "message")
    out["role"] = own.get("role", "assistant")
    if response.model is not None:
        out["model"] = response.model
    content: list[Any] = []
    stop = None
    for k in range(1, len(response.choices)):
        enc.lose(f"$.choices[{k}]", "anthropic responses have one answer")
    if response.choices:
        choice = response.choices[0]
        mine = enc.own(choice.extras, "$.choices[0]")
        if choice.index not in (None, 0):
            enc.lose("$.choices[0].index", "anthropic responses have one answer")
        message = choice.message
        if message is not None:
            path = "$.choices[0].message"
            kept = enc.own(message.extras, path)
            content = writer.assistant(message, kept, path)
            fill(out, kept)
        stop = _stop_reason(choice.finish_reason, choice.raw_finish_reason, enc)
        fill(out, mine)
    out["content"] = content
    out["stop_reason"] = stop
    if response.usage is not None:
        out["usage"] = _usage(response.usage, enc)
    return encode_body(fill(out, own))
