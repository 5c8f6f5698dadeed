"""Content parts: the pieces of a multimodal user message, tagged on ``type``.

Binary payloads stay base64 text as providers send them, so a part passes
through a codec without being decoded and encoded again.
"""

from __future__ import annotations

import base64
import posixpath
from datetime import datetime
from typing import Any, Literal, Self, get_args

from msgspec import Raw

from ._cache import Cacheable, CachePoint, check_cache
from ._errors import ValidationError
from ._fields import (
    check_choice,
    check_datetime,
    check_extras,
    check_items,
    check_optional,
    check_type,
    is_choice,
)
from ._record import Record, Shown

__all__ = [
    "AssistantPart",
    "AudioPart",
    "Citation",
    "ContentPart",
    "FilePart",
    "FileReference",
    "ImagePart",
    "McpResource",
    "OpaquePart",
    "ReasoningPart",
    "RefusalPart",
    "TextPart",
]

Detail = Literal["auto", "low", "high"]
Recognition = Literal["vision", "ocr", "auto"]
_DETAILS = frozenset(get_args(Detail))
_RECOGNITIONS = frozenset(get_args(Recognition))


_TEXT = "must be a string"


def _one_source(*sources: str | None) -> bool:
    return sum(source is not None for source in sources) == 1


def _check_text(value: object, path: str) -> None:
    """Raise unless ``value`` is text (the exact type test failed; a subclass passes)."""
    if not isinstance(value, str):
        raise ValidationError(_TEXT, path)


def _check_optional(part: object, *names: str) -> None:
    """Raise unless each field named is a string or ``None``."""
    for name in names:
        value = getattr(part, name)
        if value is not None and type(value) is not str:
            _check_text(value, "$." + name)


CitationKind = Literal["url", "char", "page", "block", "search_result", "file", "tool"]
_CITATION_KINDS = frozenset(get_args(CitationKind))


class Citation(Record, frozen=True):
    """Where a piece of an answer's text comes from.

    One form for every family's citations: Anthropic's text-block
    ``citations``, OpenAI's ``url_citation`` annotations, the Responses API's
    url and file annotations, Gemini's grounding supports, Bedrock's
    ``citationsContent`` and Cohere's ``citations``. What a family says
    beyond these fields stays in the citation's ``extras`` under the
    family's name.

    Parameters
    ----------
    kind : {"url", "char", "page", "block", "search_result", "file", "tool"}
        What the source is: a web page (``url``), a span of a document given
        in the request by characters, pages or content blocks (``document``
        is its index, ``source_start``/``source_end`` the range), a search
        result given in the request, a stored file (``file_id``), or a tool
        result given in the request (``source_id`` names it).
    start, end : int, optional
        The span of the part's text the citation supports, in characters
        (``end`` exclusive). Without them, the whole part.
    quote : str, optional
        The text quoted from the source.
    url, title : str, optional
        The source's address (a search result's ``source``) and title.
    document : int, optional
        The index of the document, or search result, in the request.
    file_id : str, optional
        The stored file's id.
    source_start, source_end : int, optional
        Where in the source: characters (``end`` exclusive), pages (1-based,
        ``end`` exclusive) or content blocks, as ``kind`` says.
    source_id : str, optional
        The source's own id, as the request named it: a document's id, or a
        tool result's (Cohere's ``<call id>:<index>``).

    Examples
    --------
    >>> Citation("url", start=0, end=5, url="https://example.com", title="Example")
    Citation(kind='url', start=0, end=5, url=<19 chars>, title=<7 chars>)
    """

    kind: CitationKind
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    url: str | None = None
    title: str | None = None
    document: int | None = None
    file_id: str | None = None
    source_start: int | None = None
    source_end: int | None = None
    source_id: str | None = None

    def __post_init__(self) -> None:
        if not is_choice(self.kind, _CITATION_KINDS):
            check_choice(self.kind, _CITATION_KINDS, "$.kind", required=True)
        for name in ("start", "end", "document", "source_start", "source_end"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 0):
                check_type(value, int, "$." + name, "must be an integer")
                if value < 0:
                    raise ValidationError("must not be negative", "$." + name)
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValidationError("must not be before start", "$.end")
        if self.end is not None and self.start is None:
            raise ValidationError("needs start", "$.end")
        check_optional(self, "quote", "url", "title", "file_id", "source_id")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        # The kind is one of a closed set, not content: shown as it is.
        shown = Record.__rich_repr__(self)
        if self.kind in _CITATION_KINDS:
            shown[0] = ("kind", Shown(repr(self.kind)))
        return shown


_CITATION = frozenset({Citation})


class TextPart(Cacheable, frozen=True, tag_field="type", tag="text"):
    """A piece of text.

    Like an image or a file part, it may close a cache point: ``cache``, a
    :class:`~chatcodec.CachePoint` (keyword only).

    Parameters
    ----------
    text : str
        The text.
    citations : tuple of Citation, optional
        Where pieces of it come from (an answer's sources).

    Examples
    --------
    >>> TextPart("Describe this picture.")
    TextPart(text=<22 chars>)
    """

    text: str
    citations: tuple[Citation, ...] = ()

    def __post_init__(self) -> None:
        if type(self.text) is not str:
            _check_text(self.text, "$.text")
        if self.citations or type(self.citations) is not tuple:
            _check_citations(self.citations)
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)


def _check_citations(citations: object) -> None:
    if not isinstance(citations, tuple):
        raise ValidationError("must be a tuple of Citation", "$.citations")
    check_items(citations, _CITATION, "$.citations", "must be a Citation")


class _MediaPart(Cacheable, frozen=True, tag_field="type"):
    """Media by URL, or as base64 ``data`` with its ``media_type``."""

    url: str | None = None
    data: str | None = None
    media_type: str | None = None

    def __post_init__(self) -> None:
        if not _one_source(self.url, self.data):
            raise ValidationError("exactly one of url and data must be set", "$.url")
        _check_optional(self, "url", "data", "media_type")
        if self.data is not None and not self.media_type:
            raise ValidationError("must be set when data is set", "$.media_type")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str, **fields: Any) -> Self:
        """Build the part from raw bytes, encoding them in base64."""
        return cls(data=base64.b64encode(data).decode("ascii"), media_type=media_type, **fields)


class ImagePart(_MediaPart, frozen=True, tag="image"):
    """An image, by URL or as base64 ``data`` with its ``media_type``.

    Parameters
    ----------
    url : str, optional
        Where the image is (``https:`` or a ``data:`` URL).
    data : str, optional
        The image bytes in base64; needs ``media_type``.
    media_type : str, optional
        MIME type, e.g. ``"image/png"``.
    detail : {"auto", "low", "high"}, optional
        Resolution hint for providers that take one.
    recognition : {"vision", "ocr", "auto"}, optional
        How the application had the image read (running it is the
        application's business; the part carries the results).
    recognized_text : str, optional
        Text read from the image (OCR). Sent instead of the image to a
        target without vision, and to every target when ``recognition`` is
        ``"ocr"``.
    vision_analysis : str, optional
        A description of the image by a vision model; sent like
        ``recognized_text`` when there is no recognized text.
    recognition_error : str, optional
        Why recognition failed.
    """

    detail: Detail | None = None
    recognition: Recognition | None = None
    recognized_text: str | None = None
    vision_analysis: str | None = None
    recognition_error: str | None = None

    def __post_init__(self) -> None:
        _MediaPart.__post_init__(self)
        if self.detail is not None and not is_choice(self.detail, _DETAILS):
            check_choice(self.detail, _DETAILS, "$.detail")
        if self.recognition is not None and not is_choice(self.recognition, _RECOGNITIONS):
            check_choice(self.recognition, _RECOGNITIONS, "$.recognition")
        if (
            self.recognized_text is not None
            or self.vision_analysis is not None
            or self.recognition_error is not None
        ):
            check_optional(self, "recognized_text", "vision_analysis", "recognition_error")

    @property
    def text_stand_in(self) -> str | None:
        """What to send instead of the image to a target without vision."""
        if self.recognized_text is not None:
            return self.recognized_text
        return self.vision_analysis


class AudioPart(_MediaPart, frozen=True, tag="audio"):
    """Audio, by URL or as base64 ``data`` with its ``media_type`` (``"audio/wav"``)."""


class FilePart(Cacheable, frozen=True, tag_field="type", tag="file"):
    """A document: base64 ``data``, a ``url`` or a provider's ``file_id``."""

    url: str | None = None
    data: str | None = None
    file_id: str | None = None
    media_type: str | None = None
    filename: str | None = None

    def __post_init__(self) -> None:
        if not _one_source(self.url, self.data, self.file_id):
            raise ValidationError("exactly one of url, data and file_id must be set", "$.url")
        _check_optional(self, "url", "data", "file_id", "media_type", "filename")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)


class ReasoningPart(Record, frozen=True, tag_field="type", tag="reasoning"):
    """The model's reasoning (thinking) before it answered.

    Parameters
    ----------
    text : str
        The reasoning text; may be empty (a provider may send only a
        signature, or redact it).
    signature : str, optional
        The provider's opaque token that lets the reasoning be sent back.
        Only the provider that made it accepts it.
    redacted : str, optional
        Encrypted reasoning the provider withheld (Anthropic's
        ``redacted_thinking``); echoed back verbatim.
    provider : str, optional
        The provider whose ``signature`` or ``redacted`` data this is.
    """

    text: str = ""
    signature: str | None = None
    redacted: str | None = None
    provider: str | None = None

    def __post_init__(self) -> None:
        if type(self.text) is not str:
            _check_text(self.text, "$.text")
        if self.signature is not None or self.redacted is not None or self.provider is not None:
            check_optional(self, "signature", "redacted", "provider")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


class RefusalPart(Record, frozen=True, tag_field="type", tag="refusal"):
    """The model's refusal to answer, in its own words."""

    text: str

    def __post_init__(self) -> None:
        if type(self.text) is not str:
            _check_text(self.text, "$.text")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


class OpaquePart(Record, frozen=True, tag_field="type", tag="opaque"):
    """A block only one provider understands, kept verbatim in its place.

    Server-tool calls and results, code execution output, citations of a kind
    chatcodec does not model: ``data`` holds the provider's JSON, byte for
    byte, and the provider's encoder writes it back unchanged. Other providers
    cannot carry it; converting reports it as lost.

    Parameters
    ----------
    provider : str
        The provider the block came from (``"anthropic"``, ``"gemini"``...).
    data : msgspec.Raw
        The block's JSON as received.
    """

    provider: str
    data: Raw

    def __post_init__(self) -> None:
        if not self.provider or type(self.provider) is not str:
            _check_text(self.provider, "$.provider")
            if not self.provider:
                raise ValidationError("must not be empty", "$.provider")
        if type(self.data) is not Raw:
            raise ValidationError("must be msgspec.Raw JSON", "$.data")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


class McpResource(Record, frozen=True, tag_field="type", tag="mcp_resource"):
    """A resource read from an MCP server, as context for the model.

    Models get it as text, under a line naming its URI; the rest stays in
    storage. Fetching it is the application's business.

    Parameters
    ----------
    server : str
        The MCP server's name.
    uri : str
        The resource's URI.
    content : str
        Its text.
    mime_type : str, optional
        Its MIME type.
    retrieved_at : datetime, optional
        When it was read.
    """

    server: str
    uri: str
    content: str
    mime_type: str | None = None
    retrieved_at: datetime | None = None

    def __post_init__(self) -> None:
        if not self.server or type(self.server) is not str:
            _check_text(self.server, "$.server")
            if not self.server:
                raise ValidationError("must not be empty", "$.server")
        if not self.uri or type(self.uri) is not str:
            _check_text(self.uri, "$.uri")
            if not self.uri:
                raise ValidationError("must not be empty", "$.uri")
        if type(self.content) is not str:
            _check_text(self.content, "$.content")
        if self.mime_type is not None:
            check_optional(self, "mime_type")
        if self.retrieved_at is not None and type(self.retrieved_at) is not datetime:
            check_datetime(self.retrieved_at, "$.retrieved_at")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)

    @property
    def text(self) -> str:
        """The text a model gets: a line with the URI, then the content."""
        return f"[resource {self.uri} from {self.server}]\n{self.content}"


Resolution = Literal["pending", "resolved", "failed"]
_RESOLUTIONS = frozenset(get_args(Resolution))


class FileReference(Record, frozen=True, tag_field="type", tag="file_reference"):
    """A file (or some of its lines) the user points at.

    Parameters
    ----------
    path : str
        Relative to the workspace root, or absolute inside it; POSIX
        separators, normalized, without ``..``.
    start_line, end_line : int, optional
        1-indexed, inclusive; ``end_line`` needs ``start_line`` and is not
        before it. Without them, the whole file.
    status : {"pending", "resolved", "failed"}, default "pending"
        Whether :func:`resolve_file_references` has read it.
    content : str, optional
        The lines read, each prefixed with its number and a tab (resolved).
    error : str, optional
        Why it could not be read (failed): a rule, never file content.

    Examples
    --------
    >>> FileReference("src/app.py", start_line=10, end_line=20)
    FileReference(path=<10 chars>, start_line=10, end_line=20)
    >>> FileReference("../etc/passwd")
    Traceback (most recent call last):
    chatcodec.ValidationError: must not contain '..' - at `$.path`
    """

    path: str
    start_line: int | None = None
    end_line: int | None = None
    status: Resolution = "pending"
    content: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if type(self.path) is not str:
            check_type(self.path, str, "$.path", "must be a string")
        check_path(self.path)
        start, end = self.start_line, self.end_line
        if start is not None and type(start) is not int:
            check_type(start, int, "$.start_line", "must be an integer")
        if end is not None and type(end) is not int:
            check_type(end, int, "$.end_line", "must be an integer")
        if not is_choice(self.status, _RESOLUTIONS):
            check_choice(self.status, _RESOLUTIONS, "$.status", required=True)
        check_optional(self, "content", "error")
        if start is not None and start < 1:
            raise ValidationError("must be at least 1", "$.start_line")
        if end is not None and (start is None or end < start):
            raise ValidationError("needs start_line and must not be before it", "$.end_line")
        if self.status == "resolved" and self.content is None:
            raise ValidationError("must be set when resolved", "$.content")
        if self.status == "failed" and not self.error:
            raise ValidationError("must be set when failed", "$.error")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)

    @property
    def lines(self) -> str:
        """The range as text: ``"10-20"``, ``"10-"`` or ``""`` (whole file)."""
        if self.start_line is None:
            return ""
        return f"{self.start_line}-{self.end_line if self.end_line is not None else ''}"


def check_path(path: str, where: str = "$.path") -> None:
    """Raise unless ``path`` is a plausible, normalized workspace path."""
    if not path:
        raise ValidationError("must not be empty", where)
    if "\0" in path:
        raise ValidationError("must not contain NUL", where)
    if "\\" in path:
        raise ValidationError("must use / as the separator", where)
    if ".." in path.split("/"):
        raise ValidationError("must not contain '..'", where)
    if posixpath.normpath(path) != path:
        raise ValidationError("must be normalized (no '.', '//' or trailing '/')", where)


ContentPart = TextPart | ImagePart | AudioPart | FilePart | FileReference | McpResource | OpaquePart
"""Any part of a user's (or a tool's) content; decodes by its ``type`` tag."""

AssistantPart = TextPart | ReasoningPart | RefusalPart | OpaquePart
"""Any part of an assistant's content; decodes by its ``type`` tag."""
