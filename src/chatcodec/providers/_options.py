"""A family's own request options, as the entry points above the codecs pass them on.

``chatcodec.convert``, ``chatcodec.http.build_request`` and the bulk command
write requests through a codec's ``encode_request``; an option only one family
has (OpenAI Chat's ``tool_call_content``) is checked here once, against the
target, and given to that family's encoder alone. Another target refuses it:
it would not change what is written, which a caller who asked for it must hear.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._errors import ValidationError
from .._frozen import FrozenMap

__all__ = ["TOOL_CALL_CONTENT", "ToolCallContent", "request_options"]

ToolCallContent = Literal["omit", "null", "empty"]
"""What an assistant message that only calls tools sends as ``content`` (OpenAI Chat)."""

TOOL_CALL_CONTENT = ("omit", "null", "empty")

_NONE: Mapping[str, Any] = FrozenMap({})
_CHOICE = "must be 'omit', 'null' or 'empty'"
_OPENAI_ONLY = (
    "only an openai target takes it (the content of an assistant message that only calls tools)"
)


def request_options(target: str, tool_call_content: object = "omit") -> Mapping[str, Any]:
    """The keyword arguments ``encode_request`` of codec ``target`` (its NAME) gets.

    Raises
    ------
    ValidationError
        ``tool_call_content`` is not one of its three values, or is not
        ``"omit"`` for a target other than OpenAI Chat.
    """
    if type(tool_call_content) is not str or tool_call_content not in TOOL_CALL_CONTENT:
        raise ValidationError(_CHOICE, "tool_call_content")
    if tool_call_content == "omit":
        return _NONE
    if target != "openai":
        raise ValidationError(_OPENAI_ONLY, "tool_call_content")
    return FrozenMap({"tool_call_content": tool_call_content})
