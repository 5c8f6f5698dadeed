"""Canonical parts, reasoning and tool calls -> Anthropic content blocks.

The blocks of one message: the parts of a user turn or of a tool result (text,
image, document), an answer's text, ``thinking`` and ``tool_use`` blocks in
the order its ``~order`` hint noted, and the ``tool_result`` of a tool
message. Tool ids Anthropic would refuse are rewritten by :func:`wire_id`, the
same way in the call and in its result.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ..._cache import CachePoint
from ..._content import (
    AudioPart,
    Citation,
    ContentPart,
    FilePart,
    ImagePart,
    McpResource,
    OpaquePart,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._loss import a
from ..._messages import AssistantMessage, ToolMessage
from ..._tools import InvalidToolCall, ToolCall
from .._cache import cache_control
from .._cite import lose_citations, pieces
from .._wire import Encoding, derive_id, fill, lose_if_read_valid
from ._cite import write_citations
from ._decode import NAME, text_source

IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image types Anthropic takes."""

_ID = re.compile(r"[a-zA-Z0-9_-]+")
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.S)

NO_FILE_NAME = "anthropic documents have no file name"
_CACHE_KEYS = frozenset({"type", "ttl"})


def borrow_cache(extras: dict[str, Any] | None) -> dict[str, Any] | None:
    """``extras`` with a ``cache_control`` OpenAI's dialect kept taken as Anthropic's.

    OpenAI-compatible gateways (OpenRouter, LiteLLM) take Anthropic's
    ``cache_control`` on a content part and pass it on to Claude: written on
    the Anthropic block, it is not lost. Only the form Anthropic takes
    (``{"type": "ephemeral"}``, with a ``ttl``) is taken; another is reported.
    """
    theirs = extras.get("openai") if extras else None
    if type(theirs) is not dict:
        return extras
    cache = theirs.get("cache_control")
    if type(cache) is not dict or cache.get("type") != "ephemeral" or cache.keys() - _CACHE_KEYS:
        return extras
    assert extras is not None
    mine = extras.get(NAME)
    mine = dict(mine) if type(mine) is dict else {}
    mine.setdefault("cache_control", cache)
    rest = {key: value for key, value in theirs.items() if key != "cache_control"}
    return {**extras, "openai": rest, NAME: mine}


"""The loss of a file part's name."""

UNSIGNED = "anthropic cannot carry reasoning that it did not sign"
"""The loss of reasoning Anthropic did not sign (it takes no other)."""

WIRE_IDS: dict[str, str] = {}  # wire_id's answers: each id comes twice (call, result)


def wire_id(id: str) -> str:
    """``id`` if Anthropic takes it, else a derived id (the same for call and result)."""
    found = WIRE_IDS.get(id)
    if found is not None:
        return found
    found = id if _ID.fullmatch(id) else derive_id("toolu_", id)
    if len(WIRE_IDS) >= 4096:
        WIRE_IDS.clear()
    WIRE_IDS[id] = found
    return found


def _json_or_none(text: str) -> msgspec.Raw | None:
    data = text.encode("utf-8", "surrogatepass")
    try:
        msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
    return msgspec.Raw(data)


EMPTY_TEXT = "anthropic refuses an empty text block"
NO_JSON_INPUT = "anthropic needs JSON tool input: sent {}"


class Blocks:
    """One encode: the losses, and whether it writes a request (stricter rules)."""

    __slots__ = ("enc", "request")

    def __init__(self, enc: Encoding, request: bool) -> None:
        self.enc = enc
        self.request = request

    # --- blocks -----------------------------------------------------------

    def mark(self, block: dict[str, Any], cache: CachePoint | None) -> dict[str, Any]:
        """``block`` with the ``cache_control`` of ``cache``, if any."""
        if cache is not None:
            block["cache_control"] = cache_control(cache)
        return block

    def text(
        self,
        text: str,
        own: dict[str, Any],
        path: str,
        out: list[Any],
        cache: CachePoint | None = None,
        citations: tuple[Citation, ...] = (),
    ) -> None:
        if not text and self.request and not own.get("~keep"):
            self.enc.lose(path, EMPTY_TEXT)
            if cache is not None:
                self.enc.lose(path + ".cache", "a cache point on a text block left out")
            lose_citations(self.enc, TextPart(text, citations), path, EMPTY_TEXT)
            return
        if citations:
            self.cited(text, own, path, out, citations, cache)
            return
        block = {"type": "text", "text": text}
        out.append(fill(self.mark(block, cache) if cache is not None else block, own))

    def cited(
        self,
        text: str,
        own: dict[str, Any],
        path: str,
        out: list[Any],
        citations: tuple[Citation, ...],
        cache: CachePoint | None = None,
    ) -> None:
        """A text with citations: one block, or one per piece where spans cut it."""
        wires = write_citations(citations, self.enc, path, self.request)
        kept = tuple(c for c, wire in zip(citations, wires, strict=True) if wire is not None)
        if all(c.start is None for c in kept):
            found = [wire for wire in wires if wire is not None]
            block = {"type": "text", "text": text, "citations": found} if found else None
            out.append(fill(self.mark(block or {"type": "text", "text": text}, cache), own))
            return
        found_wires = [wire for wire in wires if wire is not None]
        cut = pieces(text, kept)
        for n, (piece, covering) in enumerate(cut):
            block = {"type": "text", "text": piece}
            found = [found_wires[k] for k in covering]
            if found:
                block["citations"] = found
            # The block's other keys and its cache point go on its last piece.
            out.append(fill(self.mark(block, cache), own) if n == len(cut) - 1 else block)

    def opaque(self, part: OpaquePart, path: str, out: list[Any]) -> None:
        if part.provider == NAME:
            out.append(part.data)
        else:
            self.enc.lose(path, f"anthropic cannot carry {a(part.provider)} block")

    def part(self, part: ContentPart, path: str, out: list[Any]) -> None:
        """A part of a user turn or of a tool result."""
        own = self.enc.own(borrow_cache(part.extras), path)
        if type(part) is TextPart:
            self.text(part.text, own, path, out, part.cache, part.citations)
        elif type(part) is ImagePart:
            source = self.source(part.url, part.data, part.media_type, path)
            if part.detail is not None:
                self.enc.lose(path + ".detail", "anthropic images have no detail setting")
            if source is not None:
                image = {"type": "image", "source": source}
                out.append(fill(self.mark(image, part.cache), own))
        elif type(part) is FilePart:
            if part.filename is not None:
                self.enc.lose(path + ".filename", NO_FILE_NAME)
            block = self.file(part, path)
            if block is not None:
                out.append(fill(self.mark(block, part.cache), own))
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
            self.enc.lose(path, f"anthropic cannot carry {a(type(part).__name__)}")

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
        self.enc.lose(path, f"anthropic cannot carry {a(media_type or 'untyped')} file")
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
            self.enc.lose(path, UNSIGNED)
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
            return fill(self.mark(block, call.cache), own)
        assert isinstance(call, InvalidToolCall)
        lose_if_read_valid(call, path, self.enc)
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
                self.enc.lose(path + ".arguments", NO_JSON_INPUT)
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
                    own_part = self.enc.own(borrow_cache(part.extras), where)
                    self.text(part.text, own_part, where, slot, part.cache, part.citations)
                elif type(part) is ReasoningPart:
                    self.reasoning(part, self.enc.own(part.extras, where), where, slot)
                elif type(part) is OpaquePart:
                    self.enc.own(part.extras, where)
                    self.opaque(part, where, slot)
                elif type(part) is RefusalPart:
                    self.enc.lose(where, "anthropic has no refusal block: sent as text")
                    self.text(part.text, self.enc.own(part.extras, where), where, slot)
                else:
                    self.enc.lose(where, f"anthropic cannot carry {a(type(part).__name__)}")
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
                if (
                    type(part) is not TextPart
                    or part.extras
                    or not part.text
                    or part.cache is not None
                    or part.citations
                ):
                    return None
                blocks.append({"type": "text", "text": part.text})
        for k, call in enumerate(message.tool_calls):
            if call.extras or call.cache is not None:
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
        return fill(self.mark(block, message.cache), own)
