"""Tool-call ids for a dialect that takes only one shape of id (Mistral: nine letters and digits).

Mistral refuses a tool call whose id is not exactly nine letters and digits
(``call_abc123``, ``toolu_01...`` from other families are refused). Every id of
the request is mapped once: an id that fits stays, another becomes nine base-62
characters of its BLAKE2b digest, so the call and the result that answers it get
the same new id, on every run. Two ids that would map to one are told apart by
hashing again, so ids stay unique within the request.

Strategy: one scan finds whether any id needs a new one; the usual request
written for Mistral by Mistral (every id fits) is returned as is.
"""

from __future__ import annotations

import hashlib
import re

import msgspec

from ..._exchange import Request
from ..._messages import AssistantMessage, Message, ToolMessage

__all__ = ["nine_char_ids", "nine_chars"]

_FITS = re.compile(r"[A-Za-z0-9]{9}")
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def nine_chars(old: str, salt: int = 0) -> str:
    """Nine base-62 characters derived from ``old`` (and ``salt``, for a repeat)."""
    data = old.encode("utf-8", "surrogatepass") + b"\0%d" % salt
    number = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")
    out = []
    for _ in range(9):
        number, digit = divmod(number, 62)
        out.append(_DIGITS[digit])
    return "".join(out)


def nine_char_ids(request: Request) -> Request:
    """``request`` with every tool-call id nine letters and digits, the same in call and result."""
    messages = request.messages
    ids = _ids(messages)
    if all(_FITS.fullmatch(old) for old in ids):
        return request
    new: dict[str, str] = {}
    taken = {old for old in ids if _FITS.fullmatch(old)}
    for old in ids:  # in order of appearance: the mapping does not depend on a set's order
        if _FITS.fullmatch(old):
            new[old] = old
            continue
        salt = 0
        wire = nine_chars(old)
        while wire in taken:
            salt += 1
            wire = nine_chars(old, salt)
        taken.add(wire)
        new[old] = wire
    out: list[Message] = []
    for message in messages:
        if type(message) is AssistantMessage and (message.tool_calls or message.invalid_tool_calls):
            calls = tuple(
                msgspec.structs.replace(call, id=new[call.id]) for call in message.tool_calls
            )
            invalid = tuple(
                msgspec.structs.replace(call, id=new[call.id]) if call.id else call
                for call in message.invalid_tool_calls
            )
            message = msgspec.structs.replace(message, tool_calls=calls, invalid_tool_calls=invalid)
        elif type(message) is ToolMessage:
            message = msgspec.structs.replace(message, tool_call_id=new[message.tool_call_id])
        out.append(message)
    return msgspec.structs.replace(request, messages=tuple(out))


def _ids(messages: tuple[Message, ...]) -> list[str]:
    """Every tool-call id of ``messages``, once each, in order of appearance."""
    seen: dict[str, None] = {}
    for message in messages:
        if type(message) is AssistantMessage:
            for call in message.tool_calls:
                seen[call.id] = None
            for bad in message.invalid_tool_calls:
                if bad.id:
                    seen[bad.id] = None
        elif type(message) is ToolMessage:
            seen[message.tool_call_id] = None
    return list(seen)
