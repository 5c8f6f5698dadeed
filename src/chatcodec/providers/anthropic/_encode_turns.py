"""Canonical messages -> Anthropic turns and the top-level ``system``.

Leading system and developer messages become ``system``; the others are
grouped into turns, one per run of messages of the same wire role (tool
results first), unless the ``~turn`` and ``~order`` hints say how the wire
grouped and ordered them. Messages without extras take a one-pass path
(:meth:`Writer.plain_messages`) that writes the same turns.
"""

from __future__ import annotations

from typing import Any

from ..._content import TextPart
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from .._wire import fill
from ._encode_parts import WIRE_IDS, Blocks, wire_id

_SYSTEM = (SystemMessage, DeveloperMessage)
EMPTY_TURN = "an empty assistant message: anthropic takes one only as the last message"


class Writer(Blocks):
    """One encode: the blocks (:class:`Blocks`), and the turns they make up."""

    __slots__ = ()

    # --- messages -----------------------------------------------------------

    def messages(self, messages: tuple[Message, ...]) -> tuple[Any, list[Any]]:
        """The top-level ``system`` (None when there is none) and the turns."""
        for message in messages:
            if message.extras or getattr(message, "cache", None) is not None:
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
            block: dict[str, Any] = {"type": "text", "text": message.content}
            system.append(fill(self.mark(block, message.cache), own))
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
                    self.enc.lose(f"$.messages[{k}]", EMPTY_TURN)
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
        ids = WIRE_IDS  # wire_id's cache, read inline: each id is looked up twice
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
                        if (
                            type(part) is not TextPart
                            or part.extras
                            or not part.text
                            or part.cache is not None
                            or part.citations
                        ):
                            return None
                        blocks.append({"type": "text", "text": part.text})
                for call in calls:
                    if call.extras or call.cache is not None:
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
                    if not mine and type(message.content) is str and message.cache is None:
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
                            if (
                                type(item) is TextPart
                                and not item.extras
                                and item.text
                                and item.cache is None
                                and not item.citations
                            ):
                                blocks.append({"type": "text", "text": item.text})
                            else:
                                self.part(item, f"$.messages[{k}].content[{j}]", blocks)
                else:
                    assert isinstance(message, _SYSTEM)
                    where = f"$.messages[{k}]"
                    self.text(message.content, mine, where, blocks, message.cache)
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
    if kind in _SYSTEM and own.get("~form") == "string" and not _cached(message):
        return str(getattr(message, "content", ""))
    return None


def _cached(message: Message) -> bool:
    """Whether an instruction closes a cache point (a string system turn cannot say it)."""
    return getattr(message, "cache", None) is not None


def _results_first(blocks: list[Any]) -> list[Any]:
    results = [b for b in blocks if type(b) is dict and b.get("type") == "tool_result"]
    if not results or len(results) == len(blocks):
        return blocks
    return results + [b for b in blocks if not (type(b) is dict and b.get("type") == "tool_result")]
