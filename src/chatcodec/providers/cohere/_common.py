"""What the Cohere decoder and encoder share: the name, the hints, and small helpers.

Hints (keys starting with ``~`` in a record's ``extras["cohere"]``):

- ``"~plan": true`` on a reasoning part: it was the message's ``tool_plan``,
  not a ``thinking`` content item; it is written back as ``tool_plan``.
- ``"~content"`` on an assistant message: ``"str"`` (``content`` was a
  string, held as a text part beside the plan) or ``"absent"`` (the message
  had no ``content``, only a plan or calls).
- ``"~content"`` on a user message held as one empty text part:
  ``"absent"`` (no ``content``), ``"str"`` (``""``) or ``"empty"`` (``[]``);
  ``"absent"`` on a tool message without ``content``.
- ``"~parts"`` on a system message: the lengths of the text items its
  string was joined from (``content`` was a list).
- ``"~document"`` on a text part of a tool result: the part was a
  ``document`` item whose ``data`` was an object (``"object"``: the text is
  its JSON) or a string (``"str"``, as Cohere's examples send it); the
  item's other keys (``id``...) sit beside the hint, as sent.
- ``"~url": "data"`` on an image: the wire gave a ``data:`` URL, held as
  data and media type.
- ``"~id": "derived"`` on a tool call that came without an id;
  ``"~type": "absent"`` on a call or tool definition without ``type``;
  ``"~arguments": "absent"`` on a call without ``arguments``.
- ``"~role": "absent"`` on a response's message without ``role``;
  ``"~int"`` on a request: the sampling keys sent as JSON integers.

The hints of citations are listed in :mod:`._cite`.

``strict_tools: true`` is each tool's ``strict``; the encoder sends it when
every tool is strict.

The finish reasons are the shared table's (:mod:`.._finish`).
"""

from __future__ import annotations

from typing import Any

from .._finish import READ

__all__ = ["ABSENT", "DERIVED", "FINISH", "NAME", "data_url", "split_data_url"]

NAME = "cohere"

ABSENT = "absent"
DERIVED = "derived"

FINISH = READ[NAME]
"""Cohere's ``finish_reason`` values, normalized."""

_MISSING: Any = object()


def split_data_url(url: str) -> tuple[str, str] | None:
    """The media type and base64 data of a ``data:`` URL, or ``None`` for any other."""
    if not url.startswith("data:"):
        return None
    head, comma, data = url.partition(",")
    if not comma or not head.endswith(";base64"):
        return None
    media_type = head[5:-7]
    return (media_type, data) if media_type else None


def data_url(media_type: str | None, data: str) -> str:
    """A ``data:`` URL for base64 ``data``."""
    return f"data:{media_type or 'application/octet-stream'};base64,{data}"
