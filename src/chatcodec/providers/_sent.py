"""What an encoder's losses say it left out, for the preflight (see ``_preflight``).

A loss names the canonical path of what the encoder did not write. For the
preflight three kinds matter: a whole tool left out (``$.tools[k]``), a top-level
field left out (``$.tool_choice``...), and anything inside a message. A field of
another provider, kept in ``extras``, never reaches any target's rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from .._exchange import Request
from .._loss import Loss
from .._messages import AssistantMessage, Message, ToolMessage
from ._lower import _needs

__all__ = ["Dropped", "drop_tools", "dropped", "fitted_order", "lowered"]

_TOP = re.compile(r"\$\.([a-z_]+)(\..*)?")


class Dropped:
    """The losses of one encode, sorted by where they are."""

    __slots__ = ("messages", "reasons", "tools", "top")

    def __init__(self) -> None:
        self.tools: list[int] = []  # tools left out, by index
        self.top: dict[str, str] = {}  # top-level path (without "$.") -> the rest of it
        self.messages: list[tuple[int, str]] = []  # (message index, rest of the path)
        self.reasons: list[str] = []  # the reason of each of ``messages``


def dropped(losses: Sequence[Loss]) -> Dropped:
    """``losses`` sorted; a loss inside some ``extras`` is left out (no rule reads it)."""
    found = Dropped()
    for loss in losses:
        path = loss.path
        if ".extras" in path:
            continue
        # ``$.messages[i]...`` and ``$.tools[k]``, read by string methods (as
        # the regular expressions ``\$\.messages\[(\d+)\](.*)`` and
        # ``\$\.tools\[(\d+)\]`` would, at a fraction of their cost).
        if path.startswith("$.messages[") and "\n" not in path:
            end = path.find("]", 11)
            if end > 11 and path[11:end].isdecimal():
                found.messages.append((int(path[11:end]), path[end + 1 :]))
                found.reasons.append(loss.reason)
                continue
        elif path.startswith("$.tools[") and path.endswith("]") and path[8:-1].isdecimal():
            found.tools.append(int(path[8:-1]))
            continue
        m = _TOP.fullmatch(path)
        found.top[m.group(1) if m is not None else path] = (m.group(2) or "") if m else ""
    return found


def drop_tools(request: Request, lost: list[int], **fields: object) -> Request:
    """``request`` without the tools at ``lost``, and with ``fields`` replaced."""
    if lost:
        gone = set(lost)
        fields["tools"] = tuple(t for k, t in enumerate(request.tools) if k not in gone)
    return msgspec.structs.replace(request, **fields) if fields else request


def lowered(request: Request, keep: frozenset[type] = frozenset(), names: bool = True) -> bool:
    """Whether the encoder's :func:`~._lower.lower` changes anything in ``request``."""
    return _needs(request.messages, True, keep, names)


def fitted_order(messages: tuple[Message, ...]) -> bool:
    """Whether an encoder that keeps results right after their calls moves anything.

    OpenAI and the Responses API take a call's results right after the message
    making it; Anthropic and Gemini may have user text before them in the same
    turn, and consecutive assistant messages are one turn: such a request is
    reordered or joined by the encoder.
    """
    n = len(messages)
    for i, m in enumerate(messages):
        if type(m) is not AssistantMessage or not (m.tool_calls or m.invalid_tool_calls):
            continue
        if i + 1 < n and type(messages[i + 1]) is AssistantMessage:
            return True
        ids = {c.id for c in m.tool_calls}
        ids.update(c.id for c in m.invalid_tool_calls if c.id)
        other = False
        for k in range(i + 1, n):
            nxt = messages[k]
            kind = type(nxt)
            if kind is AssistantMessage:
                break
            if kind is ToolMessage and nxt.tool_call_id in ids:  # type: ignore[union-attr]
                if other:
                    return True
            else:
                other = True
    return False
