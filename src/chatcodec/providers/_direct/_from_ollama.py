"""The usual Ollama ``/api/chat`` request, read into the typed request the writers take.

Most Ollama requests are a model, a few messages of text, perhaps tools, a
``format`` of ``""`` or ``"json"`` and a few ``options``. msgspec decodes
that shape straight into the private Structs below, in C; a top-level key
the general path keeps as sent (``keep_alive``...) is kept and reported as it
reports one; anything else (an image, a call or a result in the history,
``think``, a schema as the format, an option the shape does not name) fails
the decode and goes the general way. What it reads becomes the same typed request
(:class:`~._source.Body`) an OpenAI Chat body decodes to, as the general
path reads both alike: Ollama's options are OpenAI's settings
(``num_predict`` its ``max_tokens``), its formats OpenAI's response formats,
and a sampling value sent as an integer becomes a number, as
:func:`chatcodec.providers.ollama.decode_request` reads it. Then
:func:`~._source.shaped` checks it as it checks an OpenAI request, and every
writer serves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._frozen import FrozenMap
from ..ollama._decode import REQUEST_KEYS
from ._source import (
    Body,
    Fallback,
    Message,
    Read,
    ToolSpec,
    _Format,
    decoded_keeping,
    keeping,
    number,
    shaped,
)

__all__ = ["read"]


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _Turn(_Wire):
    role: Literal["system", "user", "assistant"]
    content: str


class _Options(_Wire, kw_only=True):
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    num_predict: int | UnsetType = UNSET
    stop: list[str] | UnsetType = UNSET


class _Body(_Wire, kw_only=True):
    model: str
    messages: list[_Turn]
    tools: Raw | UnsetType = UNSET  # OpenAI's function tools: checked as theirs are
    format: Literal["", "json"] | UnsetType = UNSET
    options: _Options | UnsetType = UNSET
    stream: bool | UnsetType = UNSET


_decoder = msgspec.json.Decoder(_Body)
# The general path keeps every key it does not read (``keep_alive``...) as
# sent, and reports it; one it reads that the shape does not name (``think``)
# goes the general way.
_keys_kept = keeping(_decoder, REQUEST_KEYS)
_FORMATS: Mapping[str, Literal["text", "json_object"]] = FrozenMap(
    {"": "text", "json": "json_object"}
)


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, checked to be of the usual shape (see :func:`~._source.read`).

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    r, kept = decoded_keeping(_decoder, body, _keys_kept)
    typed = Body(messages=[Message(role=m.role, content=m.content) for m in r.messages])
    typed.model = r.model
    typed.tools = r.tools
    if r.format is not UNSET:
        typed.response_format = _Format(_FORMATS[r.format])
    typed.stream = r.stream
    options = r.options
    if options is not UNSET:
        if (
            options.temperature is UNSET
            and options.top_p is UNSET
            and options.num_predict is UNSET
            and options.stop is UNSET
        ):
            raise Fallback  # {} is kept as sent by the general path, and reported
        typed.temperature = number(options.temperature)
        typed.top_p = number(options.top_p)
        if options.num_predict is not UNSET:
            if options.num_predict < 0:
                raise Fallback  # -1 (no limit), -2 (fill the context): kept as sent
            typed.max_tokens = options.num_predict
        typed.stop = options.stop
    found = shaped(typed, kept, model, max_tokens, "ollama")
    if found.tools is not None and any(map(_kept_by_ollama, found.tools.specs)):
        raise Fallback
    return found


def _kept_by_ollama(tool: ToolSpec) -> bool:
    """Whether Ollama's decoder keeps part of ``tool`` in its extras, and reports it.

    OpenAI's ``strict`` switch, and an empty description (canonically absent):
    OpenAI's decoder reads them otherwise.
    """
    function = tool.function
    return function.strict is not UNSET or function.description == ""
