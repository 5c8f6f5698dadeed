"""The usual Cohere v2 Chat request, read into the typed request the writers take.

Cohere's request is close to OpenAI Chat's: messages of text, calls with
their arguments as JSON text and results that name them, function tools, a
text or JSON format, the common settings under Cohere's names (``p`` for
``top_p``, ``stop_sequences``, an upper-case tool choice). msgspec decodes
that shape straight into the private Structs below, in C; anything else (a
``tool_plan``, images, documents, ``strict_tools``, ``thinking``, a schema as
the format, a setting the shape does not name) fails the decode and goes the
general way. What it reads becomes the same typed request
(:class:`~._source.Body`) an OpenAI Chat body decodes to, as the general
path reads both alike (a sampling value sent as an integer becomes a number,
as :func:`chatcodec.providers.cohere.decode_request` reads it); then
:func:`~._source.shaped` checks it as it checks an OpenAI request, and every
writer serves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._frozen import FrozenMap
from ._source import (
    Body,
    Fallback,
    Message,
    Part,
    Read,
    ToolSpec,
    _Format,
    _Function,
    decoded,
    number,
    shaped,
)
from ._source import _Call as _OpenAICall

__all__ = ["read"]


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Text(_Wire):
    type: Literal["text"]
    text: str


class _Fn(_Wire):
    name: str
    arguments: str


class _CohereCall(_Wire):
    id: str
    type: Literal["function"]
    function: _Fn


class _Turn(_Wire, kw_only=True):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[_Text] | UnsetType = UNSET
    tool_calls: list[_CohereCall] | UnsetType = UNSET
    tool_call_id: str | UnsetType = UNSET


class _TextFormat(_Wire):
    type: Literal["text", "json_object"]


class _Body(_Wire, kw_only=True):
    model: str
    messages: list[_Turn]
    tools: Raw | UnsetType = UNSET  # OpenAI's function tools: checked as theirs are
    response_format: _TextFormat | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    stop_sequences: list[str] | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    p: int | float | UnsetType = UNSET
    tool_choice: Literal["REQUIRED", "NONE"] | UnsetType = UNSET
    stream: bool | UnsetType = UNSET


_decoder = msgspec.json.Decoder(_Body)
_CHOICES: Mapping[str, Literal["required", "none"]] = FrozenMap(
    {"REQUIRED": "required", "NONE": "none"}
)


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, checked to be of the usual shape (see :func:`~._source.read`).

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    r = decoded(_decoder, body)
    typed = Body(messages=[_message(m) for m in r.messages])
    typed.model = r.model
    typed.tools = r.tools
    if r.response_format is not UNSET:
        typed.response_format = _Format(r.response_format.type)
    if r.max_tokens is not UNSET:
        if r.max_tokens < 0:
            raise Fallback  # kept as sent by the general path
        typed.max_tokens = r.max_tokens
    typed.stop = r.stop_sequences
    typed.temperature = number(r.temperature)
    typed.top_p = number(r.p)
    if r.tool_choice is not UNSET:
        typed.tool_choice = _CHOICES[r.tool_choice]
    typed.stream = r.stream
    read = shaped(typed, None, model, max_tokens, "cohere")
    if read.tools is not None and not all(map(_usual, read.tools.specs)):
        raise Fallback
    return read


def _usual(tool: ToolSpec) -> bool:
    """Whether Cohere's general decoder reads ``tool`` as the OpenAI source's reads it.

    It reads a tool with an empty description as one of Cohere's own, and
    keeps a function's ``strict`` in the tool's extras (Cohere's switch is
    the request's ``strict_tools``): the targets report either.
    """
    return tool.function.description != "" and tool.function.strict is UNSET


def _message(m: _Turn) -> Message:
    content: Any = m.content
    if type(content) is list:
        content = [Part(type="text", text=item.text) for item in content]
    elif content is UNSET and m.role != "assistant":
        raise Fallback  # held by the general path as an empty part, with a hint
    message = Message(role=m.role, content=content, tool_call_id=m.tool_call_id)
    if m.tool_calls is not UNSET:
        message.tool_calls = [
            _OpenAICall(
                id=c.id,
                type="function",
                function=_Function(c.function.name, c.function.arguments),
            )
            for c in m.tool_calls
        ]
    return message
