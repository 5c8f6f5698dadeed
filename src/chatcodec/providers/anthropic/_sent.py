"""The request Anthropic is sent, as its rules see it, from the encoder's losses.

See ``providers/_preflight.py``. The encoder hoists the leading instructions
into ``system`` (read back as one instruction each), and writes the other
messages as turns, one per run of one wire role: a run of tool results and
user messages is one user turn, its results first, which the decoder reads
back as the results, then one user message holding the other parts of the
turn. That is done here too. Two assistant messages in a row (one turn, read
back as one message) are declined, as are invalid calls, parts written as
other blocks or split (cited text, another form of image, an MCP resource,
Anthropic's own blocks and hints) and repeated call ids (renamed). The
encoder leaves out empty text, parts and reasoning it cannot carry, an empty
answer before the last turn (before turns are formed) and an answer none of
whose parts it could write (after): each is taken out here, as the decoder
would not find it. A refusal is sent as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..._content import (
    FilePart,
    ImagePart,
    McpResource,
    ReasoningPart,
    RefusalPart,
    TextPart,
)
from ..._exchange import Request
from ..._loss import Loss
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .._ids import _repeats
from .._sent import drop_tools, dropped, lowered
from ._check import _cache_points
from ._decode import NAME
from ._encode_parts import _DATA_URL, EMPTY_TEXT
from ._encode_turns import EMPTY_TURN

__all__ = ["as_sent"]

_KEEP = frozenset({McpResource})
_SYSTEM = (SystemMessage, DeveloperMessage)
# Top-level fields the rules read: a loss in any of them is not followed here.
_READ = frozenset(
    {"model", "max_tokens", "messages", "temperature", "top_p", "stop", "tools", "reasoning"}
)
_LEFT_EMPTY = "an assistant turn left empty"


def as_sent(request: Request, losses: Sequence[Loss]) -> Request | None:
    """The request as Anthropic reads it back, or ``None`` when it cannot be told."""
    messages = request.messages
    if (request.extras and NAME in request.extras) or lowered(request, _KEEP):
        return None
    if _repeats(messages):
        return None  # repeated call ids: renamed
    found = dropped(losses)
    fields: dict[str, object] = {}
    for key, rest in found.top.items():
        if key == "tool_choice" and not rest:
            fields[key] = None
        elif key in _READ or key.startswith("$") or key == "tool_choice" or key == "extras":
            return None
    before: set[int] = set()  # messages left out before turns are formed
    after: set[int] = set()  # and after
    parts: dict[int, set[int]] = {}  # parts left out, by message
    texts: set[int] = set()  # messages whose string content (empty) is left out
    for (i, rest), reason in zip(found.messages, found.reasons, strict=True):
        if not rest:
            if reason == EMPTY_TURN:
                before.add(i)
            elif reason == _LEFT_EMPTY:
                after.add(i)
            else:
                return None
        elif rest.startswith(".content["):
            end = rest.find("]")
            if end == len(rest) - 1:
                j = int(rest[9:end])
                content: Any = getattr(messages[i], "content", None)
                if type(content[j]) is not RefusalPart or reason == EMPTY_TEXT:
                    parts.setdefault(i, set()).add(j)
        elif rest == ".content":
            texts.add(i)
        elif rest != ".name" and rest != ".cache" and not rest.startswith(".response_format"):
            return None
    over: list[Any] = []
    _cache_points(request, over)
    if over:
        return None  # more cache points than Anthropic takes: found by other paths
    out: list[Message] = []
    n = len(messages)
    start = 0
    while start < n and type(messages[start]) in _SYSTEM:
        message = messages[start]
        if not message.content or _own(message.extras):
            return None  # an empty one is not read back as an instruction
        out.append(message)
        start += 1
    role = ""  # the open turn's wire role
    turn: list[int] = []  # the open turn's messages
    for k in range(start, n):
        if k in before:
            continue
        kind = type(messages[k])
        now = (
            "assistant"
            if kind is AssistantMessage
            else "user"
            if kind is UserMessage or kind is ToolMessage
            else "system"
        )
        if now == role:
            if now == "assistant":
                return None  # one turn, read back as one message
            turn.append(k)
            continue
        if turn and not _turn(role, turn, messages, parts, texts, after, out):
            return None
        role, turn = now, [k]
    if turn and not _turn(role, turn, messages, parts, texts, after, out):
        return None
    if len(out) != n or any(a is not b for a, b in zip(out, messages, strict=True)):
        fields["messages"] = tuple(out)
    return drop_tools(request, found.tools, **fields)


def _own(extras: dict[str, Any] | None) -> bool:
    """Whether ``extras`` hold Anthropic's own keys (hints this module does not follow)."""
    return bool(extras) and NAME in extras  # type: ignore[operator]


def _turn(
    role: str,
    members: list[int],
    messages: tuple[Message, ...],
    parts: dict[int, set[int]],
    texts: set[int],
    after: set[int],
    out: list[Message],
) -> bool:
    """Append the messages one turn is read back as; False when it cannot be told."""
    if role == "assistant":
        k = members[0]
        message = messages[k]
        assert isinstance(message, AssistantMessage)
        if message.invalid_tool_calls or _own(message.extras):
            return False
        if k in after:
            return True
        content: Any = message.content
        if k in texts:
            content = None
        elif type(content) is tuple:
            content = _assistant_parts(content, parts.get(k))
            if content is None:
                return False
        if any(call.extras and NAME in call.extras for call in message.tool_calls):
            return False
        out.append(
            message
            if content is message.content
            else msgspec.structs.replace(message, content=content)
        )
        return True
    if role == "system":
        for k in members:
            message = messages[k]
            if _own(message.extras):
                return False
            if k not in texts:
                out.append(message)
        return True
    results: list[Message] = []
    others: list[Any] = []  # the other parts of the turn
    single: Message | None = None  # a lone user message, read back as it is
    for k in members:
        message = messages[k]
        if _own(message.extras):
            return False
        body: Any = message.content
        if type(message) is ToolMessage:
            if type(body) is tuple:
                kept = _user_parts(body, parts.get(k))
                if kept is None:
                    return False
                if kept is not body:
                    message = msgspec.structs.replace(message, content=kept)
            results.append(message)
        elif type(body) is str:
            if not body:
                return False  # refused by the decoder when alone in its turn
            if len(members) == 1:
                single = message
            else:
                others.append(TextPart(body))
        else:
            kept = _user_parts(body, parts.get(k))
            if kept is None:
                return False
            if len(members) == 1 and kept:
                single = message if kept is body else msgspec.structs.replace(message, content=kept)
            else:
                others.extend(kept)
    out.extend(results)
    if single is not None:
        out.append(single)
    elif others:
        out.append(UserMessage(tuple(others)))
    return True


def _user_parts(content: tuple[Any, ...], lost: set[int] | None) -> tuple[Any, ...] | None:
    """The parts of a user turn or a tool result as read back (``None``: not told)."""
    changed = False
    kept: list[Any] = []
    for j, part in enumerate(content):
        if lost is not None and j in lost:
            changed = True
            continue
        kind = type(part)
        if kind is TextPart:
            if part.citations or _own(part.extras):
                return None
        elif kind is ImagePart:
            if _own(part.extras):
                return None
            url = part.url
            if part.data is None and url is not None and url.startswith("data:"):
                match = _DATA_URL.fullmatch(url)
                assert match is not None  # else left out, and reported
                part = msgspec.structs.replace(part, data=match[2], media_type=match[1])
                changed = True
        elif kind is FilePart:
            if _own(part.extras) or (part.url is not None and part.url.startswith("data:")):
                return None
        else:
            return None  # another provider's block is reported as lost: Anthropic's own
        kept.append(part)
    return tuple(kept) if changed else content


def _assistant_parts(content: tuple[Any, ...], lost: set[int] | None) -> tuple[Any, ...] | None:
    """The parts of an answer as read back (``None``: not told)."""
    changed = False
    kept: list[Any] = []
    for j, part in enumerate(content):
        if lost is not None and j in lost:
            changed = True
            continue
        kind = type(part)
        if _own(part.extras) or (kind is TextPart and part.citations):
            return None
        if kind is RefusalPart:
            part = TextPart(part.text)
            changed = True
        elif kind is not TextPart and not (kind is ReasoningPart and part.provider == NAME):
            return None  # an opaque block of Anthropic's own
        kept.append(part)
    return tuple(kept) if changed else content
