"""A Chat message's ``annotations`` <-> the citations of its text.

OpenAI's Chat Completions cites the web only: ``{"type": "url_citation",
"url_citation": {"start_index", "end_index", "url", "title"}}`` on the
message, its span counting characters of the message's ``content``. The
message's text becomes one part holding them. The inner object's other keys
stay in the citation's extras under ``~inner`` (another family reports
them); a list holding anything else is kept as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._content import Citation
from ..._frozen import FrozenMap
from .._cite import lose_fields, read_fields, wire_fields
from .._wire import Encoding, fill, leftover

NAME = "openai"

_INNER: Mapping[str, str] = FrozenMap(
    {"end_index": "end", "start_index": "start", "title": "title", "url": "url"}
)
_CARRIED = frozenset(_INNER.values())
_OUTER = frozenset({"type", "url_citation"})
_HELD = "~inner"
NOT_URL = "openai chat cites web pages only (url_citation)"


def read_annotations(wire: Any) -> tuple[Citation, ...] | None:
    """The citations of a message's ``annotations``; None to keep the list as sent."""
    if type(wire) is not list or not wire:
        return None
    out = []
    for item in wire:
        if type(item) is not dict or item.get("type") != "url_citation":
            return None
        inner = item.get("url_citation")
        if type(inner) is not dict:
            return None
        fields, left = read_fields(inner, _INNER)
        if not {"url", "start", "end"} <= fields.keys():
            return None  # not a citation of a span of the text
        own = leftover(item, _OUTER) or {}
        if left:
            own[_HELD] = left
        out.append(Citation("url", **fields, extras={NAME: own} if own else None))
    return tuple(out)


def take_annotations(own: dict[str, Any]) -> tuple[Citation, ...] | None:
    """The citations of the ``annotations`` kept in ``own``, taken out of it; or None."""
    cited = read_annotations(own.get("annotations"))
    if cited is not None:
        del own["annotations"]
    return cited


def write_annotation(
    citation: Citation, offset: int, size: int, enc: Encoding, path: str
) -> dict[str, Any] | None:
    """The ``url_citation`` of a part's citation (its text at ``offset``), or None if lost."""
    own = enc.own(citation.extras, path)
    if citation.kind != "url" or citation.url is None:
        enc.lose(path, NOT_URL)
        return None
    lose_fields(enc, citation, path, _CARRIED)
    start, end = citation.start, citation.end
    if start is None:
        start, end = 0, size
    inner = wire_fields(citation, _INNER)
    if "title" not in inner and "title" not in own.get(_HELD, ()):
        inner["title"] = ""  # required: a source without a title has an empty one
    inner["start_index"] = offset + start
    inner["end_index"] = offset + (end if end is not None else start)
    held = own.get(_HELD)
    if type(held) is dict:
        fill(inner, held)
    return fill({"type": "url_citation", "url_citation": inner}, own)
