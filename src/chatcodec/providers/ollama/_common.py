"""What the Ollama decoder and encoder share: keys, hints and small mappings.

Hints (keys starting with ``~`` in a record's ``extras["ollama"]``):

- ``"~id": "derived"`` on a tool call: Ollama sent no id, chatcodec made one.
- ``"~tool_call_id": "derived"`` on a tool message: the id is the matching
  call's, found by ``tool_name``; ``"~tool_name": "absent"``: none was sent.
- ``"~content": "absent"`` on a user or tool message whose text is empty
  because the wire had no ``content``.
- ``"~arguments"`` on a tool call: ``"string"`` (sent as a JSON string, not an
  object), ``"absent"``, or ``"json"`` (an invalid call's JSON value that is
  not an object, ``null`` say). Invalid calls from Ollama always have one.
- ``"~data": "verbatim"`` on an image whose base64 is not in the standard
  padded alphabet: sent back as it came, not repaired.
- ``"~calls"`` on an assistant message: ``"v"``/``"i"`` per call, the order of
  valid and invalid calls when it is not "valid first".
- ``"~role"``: ``"developer"`` (sent as such, not as ``system``) or
  ``"absent"`` (an answer's message without a role).
- ``"~stream": "absent"`` on a request sent without ``stream`` (Ollama then
  streams; a request that does not say is sent with ``"stream": false``).
- ``"~int"`` on a request: the option keys (``temperature``, ``top_p``) sent
  as JSON integers.
- ``"~message"``/``"~done": "absent"`` on a response; ``"~absent"`` on usage:
  the count keys the response did not have.
"""

from __future__ import annotations

from msgspec import Raw

from ..._errors import DECODE_FAILURES
from ..._frozen import FrozenMap
from ..._record import json_decoder
from .._finish import READ

NAME = "ollama"

ABSENT = "absent"
DERIVED = "derived"

FINISH = READ[NAME]
"""Ollama's ``done_reason`` values; ``stop`` with tool calls means tool calls."""

# Base64 of each format's first bytes: enough to name the image without
# decoding it.
_MAGIC = (
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
    ("Qk", "image/bmp"),
)
UNKNOWN_IMAGE = "image/*"
"""The media type of an image whose format is not recognized."""


def guess_media_type(data: str) -> str:
    """The media type of base64 image ``data``, from its first bytes."""
    for prefix, media_type in _MAGIC:
        if data.startswith(prefix):
            return media_type
    return UNKNOWN_IMAGE


def tool_call_order(kinds: str, n_valid: int, n_invalid: int) -> bool:
    """Whether an ``~calls`` hint fits a message's calls (it may be stale)."""
    return (
        len(kinds) == n_valid + n_invalid
        and kinds.count("v") == n_valid
        and kinds.count("i") == n_invalid
    )


_URLSAFE = FrozenMap(str.maketrans("-_", "+/"))


def nonstandard_base64(data: str) -> bool:
    """Whether ``data`` is URL-safe or unpadded base64 (Ollama takes neither)."""
    if "-" in data or "_" in data:
        return True
    n = len(data)
    if "\n" in data or "\r" in data:
        n -= data.count("\n") + data.count("\r")
    return n % 4 != 0


def standard_base64(data: str) -> str:
    """``data`` in the standard, padded base64 alphabet that Ollama decodes."""
    if not nonstandard_base64(data):
        return data
    data = data.translate(_URLSAFE)
    n = len(data) - data.count("\n") - data.count("\r")
    return data + "=" * (-n % 4)


def is_object(text: str) -> bool:
    """Whether ``text`` is a JSON object (one scan in C)."""
    if not text.lstrip().startswith("{"):
        return False
    try:
        json_decoder(Raw).decode(text)
    except DECODE_FAILURES:
        return False
    return True
