"""The usual OpenAI Chat request, read into typed Structs and checked for a direct conversion.

msgspec decodes the usual request (leading instructions, then user, assistant
and tool messages of text, data-URL images and PDFs (Mistral's
``document_url``), tool calls (their arguments written as ``{}`` and reported
when they are not JSON), and for Anthropic images and documents by https URL
and PDF files; function tools; the common parameters, and a ``reasoning_effort``
the general path reads, kept as the canonical :class:`~chatcodec.Reasoning`
each writer writes as its family's encoder does) straight into the
private Structs below, in C. The Structs forbid unknown fields, so a key
they do not name (a dialect's, a setting, a message ``name``...) fails the
decode, and so does a value of another type. :func:`read` then checks what
the types cannot: that the conversation is one every target takes as it is
(no empty text except beside calls, each call answered right after it, ids
and tool names the targets keep), so that the general path would report no
loss beyond the few each target writes itself and its preflight would find
no problem. Whatever fails goes the general way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from ..._depth import check_depth
from ..._errors import DepthError, ValidationError
from ..._exchange import Reasoning
from ..._frozen import FrozenMap
from ..._loss import Loss, cannot_run, choice_cannot_run
from ..._schema import any_open, unsupported
from ..._tools import DESCRIPTION_LIMIT, ToolDefinition, check_name
from .._profiles import sampling_problems
from .._wire import MAX_BODY, Encoding, as_kept, neutral
from ..anthropic._encode_parts import IMAGE_TYPES, wire_id
from ..gemini._check import STOP_LIMIT
from ..gemini._subset import fits
from ..openai._common import is_closed, split_data_url
from ..openai._decode import GENERAL_KEYS
from ..openai._fastreq import CARRIED

__all__ = [
    "INSTRUCTIONS",
    "NOT_JSON",
    "Body",
    "Fallback",
    "FunctionSpec",
    "Message",
    "Part",
    "Read",
    "Schema",
    "ToolSpec",
    "Tools",
    "Writer",
    "check_sampling",
    "check_specs",
    "decoded",
    "image",
    "keeping",
    "kept_losses",
    "number",
    "place_message_losses",
    "read",
    "readable",
    "runnable",
    "shaped",
    "split_tools",
    "tool_choice",
    "tool_losses",
    "well_formed",
]

T = TypeVar("T")
S = TypeVar("S", bound=Struct)
A = TypeVar("A")


class Fallback(Exception):
    """The request is not of the usual shape: the general path converts it."""


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class _URL(_Wire):
    url: Raw  # an image of megabytes is not read into a string and written again (see image)


class _File(_Wire, kw_only=True):
    file_data: Raw | UnsetType = UNSET  # a PDF's data URL, passed on as sent (see document)
    file_id: str | UnsetType = UNSET
    filename: str | UnsetType = UNSET


class Part(_Wire, kw_only=True):
    """A part of a user message: text, an image or a file (told apart by ``type``)."""

    # Untagged: the tag comes after the image in most bodies, and a tagged
    # union would read an image of megabytes twice to find it.
    type: str
    text: str | UnsetType = UNSET
    image_url: _URL | UnsetType = UNSET
    file: _File | UnsetType = UNSET
    document_url: Raw | UnsetType = UNSET  # Mistral's file by URL (see document_url)


class _Function(_Wire):
    name: str
    arguments: str


class _Call(_Wire, kw_only=True):
    id: str
    type: Literal["function"]
    function: _Function
    index: int | UnsetType = UNSET  # a streamed call's position: no target needs it, none loses it


class Message(_Wire, kw_only=True):
    """A message of the history, of any role (see :func:`_messages` for each one's keys)."""

    # Untagged, as Part: the role comes after the content in many bodies.
    role: str
    content: str | list[Part] | UnsetType | None = UNSET
    tool_calls: list[_Call] | UnsetType = UNSET
    tool_call_id: str | UnsetType = UNSET
    reasoning_content: str | UnsetType = UNSET
    reasoning: str | UnsetType = UNSET  # the same, as other servers spell it (one of the two)
    prefix: Literal[False] | UnsetType = UNSET  # Mistral's default: nothing to carry


class FunctionSpec(_Wire, kw_only=True):
    """A function tool's name, description, parameter schema and strictness."""

    name: str
    description: str | UnsetType = UNSET
    parameters: Raw  # examined with its array (see _tools)
    strict: bool | UnsetType = UNSET


class ToolSpec(_Wire, kw_only=True):
    """A tool of the array, as OpenAI Chat sends one."""

    type: Literal["function"] | UnsetType = UNSET  # fine-tuning files often leave it out
    function: FunctionSpec


class _Named(_Wire):
    name: str


class _Forced(_Wire):
    """A named tool: ``{"type": "function", "function": {"name": ...}}``."""

    type: Literal["function"]
    function: _Named


class _Format(_Wire):
    type: Literal["text", "json_object"]


class Body(_Wire, kw_only=True):
    messages: list[Message]
    model: str | UnsetType = UNSET
    tools: Raw | UnsetType = UNSET  # checked once per array of tools (see _tools)
    # "any" is Mistral's "required"; a named tool forces that tool.
    tool_choice: Literal["auto", "none", "required", "any"] | _Forced | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    max_completion_tokens: int | UnsetType = UNSET
    temperature: int | float | UnsetType = UNSET
    top_p: int | float | UnsetType = UNSET
    stream: bool | UnsetType = UNSET
    stream_options: dict[str, Any] | UnsetType = UNSET  # kept by OpenAI only: reported
    stop: list[str] | str | UnsetType = UNSET
    n: Literal[1] | UnsetType = UNSET
    response_format: _Format | UnsetType = UNSET
    # A value OpenAI added later is kept as sent by the general path: not here.
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high"] | UnsetType = UNSET


class Schema(Struct, frozen=True, gc=False):
    """A tool's parameter schema: what is written, and the rules it passes."""

    value: Any  # the bytes as sent (Raw) when msgspec writes them so, else the parsed schema
    closed: bool  # every object schema is closed: a strict tool may have it
    anthropic_strict: bool  # no keyword anthropic's strict mode leaves unenforced
    gemini: bool  # only keywords of gemini's schema subset


class Tools(Struct, frozen=True, gc=False):
    """A request's tools, checked: the same for every request that sends the same array."""

    # The family that read it, then the array as sent: the writers keep what they
    # write for it by this key (one array may hold other tools for another family).
    key: bytes
    specs: list[ToolSpec]
    schemas: list[Schema]  # each tool's parameters
    # Each tool's extras as the general path keeps them (the source's keys the
    # canonical tool has no field for), by its index in the array: reported (see
    # tool_losses).
    extras: tuple[tuple[int, dict[str, Any]], ...] = ()
    # The indexes of the tools only the source's provider runs (its built-in
    # tools), in order: no target of the direct path runs them, and each
    # reports each one lost (see tool_losses). ``specs`` are the others.
    foreign: tuple[int, ...] = ()

    def index(self, k: int) -> int:
        """The index in the array as sent of ``specs[k]``."""
        for i in self.foreign:
            if i > k:
                break
            k += 1
        return k


class Read(Struct, gc=False):
    """A request of the usual shape, and what the writers need of it."""

    body: Body
    start: int  # the index of the first message after the leading instructions
    model: str | None
    max_tokens: int | None
    arguments: dict[str, Raw]  # each call's arguments, by call id
    names: dict[str, str]  # each call's tool name, by call id
    images: list[tuple[str, Any]]  # each image's and file's source (see image, document), in order
    tools: Tools | None
    stop: list[str] | None
    choice: str | None  # the tool choice's mode: auto, none, required or tool (named)
    forced: str | None  # the tool a "tool" choice names
    kept: dict[str, Any] | None  # the keys the source alone keeps, in body order: reported
    source: str = "openai"  # the source's family: the one whose extras ``kept`` are
    reasoning: Reasoning | None = None  # the reasoning setting, as the general path reads it
    # What the messages hold that no writer writes and the general path reports, in
    # order, as (path of the message or call, key, value): a call's thought signature
    # under its key as sent, kept in its extras; a result's error flag ("is_error", with
    # the id of the call it answers).
    held: tuple[tuple[str, str, Any], ...] = ()
    failed: frozenset[str] = frozenset()  # the calls whose results are errors, by id
    # The assistant messages (by index) whose first part, left out of the message, is
    # reasoning without text that only the source's provider can read (see _left).
    reasoned: tuple[int, ...] = ()
    # The blocks of the source's own (by message and part index) that the general path
    # keeps as opaque parts, left out of ``body.messages``: every target reports them
    # (see _left.reporting).
    blocks: tuple[tuple[int, int], ...] = ()


Writer = Callable[[Read], tuple[bytes, list[Loss]]]
"""A target's writer: the body and its losses, or :class:`Fallback`."""


def place_message_losses(losses: list[Loss], said: list[Loss]) -> None:
    """Put ``said``, losses of the messages a writer left for others to tell, where they go.

    The general encoder reports what a message holds as it writes the
    message: after the keys only the source keeps, which every writer
    reports first, and before the rest. When the writer reported on the
    messages itself, the two would have to be told in the messages' order:
    the request goes the general way.

    Raises
    ------
    Fallback
        When ``losses`` holds a message's loss.
    """
    start = 0
    while start < len(losses) and losses[start].path.startswith(_EXTRAS):
        start += 1
    if any(loss.path.startswith(_MESSAGES) for loss in losses):
        raise Fallback
    losses[start:start] = said


_EXTRAS = "$.extras."
_MESSAGES = "$.messages["


_decoder = msgspec.json.Decoder(Body)
NOT_JSON = Raw(b"{}")
"""The arguments of a call that are not JSON (told apart by identity): the targets write ``{}``."""
_raw = msgspec.json.Decoder(Raw)
INSTRUCTIONS = frozenset(("system", "developer"))
URL_LIMIT = 2048  # an image URL taken as sent; a longer one goes the general way
"""The roles of the instructions, which come first."""


def read(body: bytes | str, model: str | None, max_tokens: int | None) -> Read:
    """The typed request, checked to be of the usual shape.

    ``model`` and ``max_tokens`` are :func:`~chatcodec.convert`'s: the model
    replaces the body's, the limit fills a gap.

    Raises
    ------
    Fallback
        When the body is not of the usual shape (or not JSON).
    """
    r, kept = decoded_keeping(_decoder, body, _keys_kept)
    return shaped(r, kept, model, max_tokens)


def decoded_keeping(
    decoder: msgspec.json.Decoder[T],
    body: bytes | str,
    keys_kept: Callable[[bytes | str], tuple[T, dict[str, Any]]],
) -> tuple[T, dict[str, Any] | None]:
    """``body`` decoded into a source's typed request, and the top-level keys its family keeps.

    A key at the top that the typed request does not name is one the general
    path keeps as sent (and reports) or one it reads: ``keys_kept`` tells them
    apart, giving the request without the first kind and those keys, or
    raising :class:`Fallback` for the second.

    Raises
    ------
    Fallback
        When it is too large, not JSON, or not of the typed shape.
    """
    if len(body) > MAX_BODY:
        raise Fallback  # the general path refuses it
    try:
        return decoder.decode(body), None
    except msgspec.ValidationError as exc:
        if not str(exc).startswith(_UNKNOWN_KEY) or " - at " in str(exc):
            raise Fallback from None
        return keys_kept(body)  # a key at the top that only the source's family keeps
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        raise Fallback from None


def keeping(
    decoder: msgspec.json.Decoder[S], read: frozenset[str]
) -> Callable[[bytes | str], tuple[S, dict[str, Any]]]:
    """A source's ``keys_kept`` for :func:`decoded_keeping`.

    The general path keeps every top-level key it does not read in the
    request's extras, in body order, and the targets report each one that
    says something as lost: the writers report the same (see
    :func:`kept_losses`). The function it gives returns the request without
    those keys, and the keys; a key in ``read`` (one the general path reads,
    that the typed request does not name) sends the request the general way.
    """
    fields = frozenset(f.encode_name for f in msgspec.structs.fields(decoder.type))

    def keys_kept(body: bytes | str) -> tuple[S, dict[str, Any]]:
        known, kept = _split(_top_level(body), fields, read)
        try:
            return decoder.decode(_encode(known)), as_kept(kept)  # a key like a hint: escaped
        except (msgspec.DecodeError, UnicodeError, RecursionError):
            raise Fallback from None

    return keys_kept


def decoded(decoder: msgspec.json.Decoder[T], body: bytes | str) -> T:
    """``body`` decoded into a source's typed request.

    Raises
    ------
    Fallback
        When it is too large, not JSON, or not of the typed shape.
    """
    if len(body) > MAX_BODY:
        raise Fallback  # the general path refuses it
    try:
        return decoder.decode(body)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        raise Fallback from None


_EXACT = 2**53  # an int a float holds exactly


def number(value: int | float | UnsetType) -> float | UnsetType:
    """A sampling value as a decoder that reads numbers as floats reads it.

    Raises
    ------
    Fallback
        For an int no float holds exactly: such a decoder keeps it as sent.
    """
    if type(value) is int:
        if not -_EXACT <= value <= _EXACT:
            raise Fallback
        return float(value)
    return value


def shaped(
    r: Body,
    kept: dict[str, Any] | None,
    model: str | None,
    max_tokens: int | None,
    source: str = "openai",
) -> Read:
    """A typed request of ``source``, checked to be of the usual shape (see :func:`read`).

    Raises
    ------
    Fallback
        When it is not of the usual shape.
    """
    limit: int | None = max_tokens
    if r.max_tokens is not UNSET:
        if r.max_completion_tokens is not UNSET:
            raise Fallback
        limit = r.max_tokens
    elif r.max_completion_tokens is not UNSET:
        limit = r.max_completion_tokens
    if limit is not None and limit < 1:
        raise Fallback
    if r.stream_options is not UNSET and not r.stream_options:
        raise Fallback  # an empty value is not reported as lost
    stop: list[str] | None = None
    if type(r.stop) is str:
        stop = [r.stop]
    elif type(r.stop) is list:
        stop = r.stop
    if stop is not None and (len(stop) > STOP_LIMIT or not all(s.strip() for s in stop)):
        raise Fallback  # the preflights' rules: Gemini takes 5, Anthropic no blank one
    for value in (r.temperature, r.top_p):
        if value is not UNSET and not 0 <= value <= 1:
            raise Fallback  # the targets' ranges differ: their preflights decide
    images: list[tuple[str, Any]] = []
    arguments, names = _messages(r.messages, images)
    tools = None if r.tools is UNSET else _tools(r.tools)
    choice, forced = _choice(r.tool_choice, tools)
    if model is None and r.model is not UNSET:
        model = r.model
    start = 0
    while r.messages[start].role in INSTRUCTIONS:
        start += 1
    if kept is None and r.stream_options is not UNSET:
        kept = {"stream_options": r.stream_options}
    found = Read(
        r, start, model, limit, arguments, names, images, tools, stop, choice, forced, kept, source
    )
    if r.reasoning_effort is not UNSET:
        found.reasoning = Reasoning(r.reasoning_effort)
    return found


def check_sampling(r: Read, family: str) -> None:
    """Decline a sampling value the model's profile refuses in ``family``: the preflight names it.

    Raises
    ------
    Fallback
        When the target's preflight would find such a value.
    """
    body = r.body
    temperature = None if body.temperature is UNSET else body.temperature
    top_p = None if body.top_p is UNSET else body.top_p
    if (temperature is not None or top_p is not None) and sampling_problems(
        family, r.model, temperature, top_p
    ):
        raise Fallback


def tool_losses(r: Read, family: str, losses: list[Loss]) -> None:
    """Report the tools as the general encoder of ``family`` does, after the messages.

    Tool by tool: its extras, or, for a tool only the source's provider runs,
    the tool.
    """
    tools = r.tools
    if tools is None or not (tools.extras or tools.foreign):
        return
    key = (family, tools.key)
    found = _TOOL_LOSSES.get(key)
    if found is None:
        said: list[Loss] = []
        encoding = Encoding(family, said)
        kept = dict(tools.extras)
        for k in sorted((*kept, *tools.foreign)):
            extras = kept.get(k)
            if extras is None:
                said.append(Loss(f"$.tools[{k}]", cannot_run(r.source, family)))
            else:
                encoding.own(extras, f"$.tools[{k}]")
        found = tuple(said)
        if len(_TOOL_LOSSES) >= CACHE_LIMIT:
            _TOOL_LOSSES.clear()
        _TOOL_LOSSES[key] = found
    losses += found


# What each target reports of an array's tools (the key holds the source's
# family): an application sends the same tools with every request.
_TOOL_LOSSES: dict[tuple[str, bytes], tuple[Loss, ...]] = {}


_UNKNOWN_KEY = "Object contains unknown field"
_keyed = msgspec.json.Decoder(dict[str, Raw])
_FIELDS = frozenset(Body.__struct_fields__)
_READ = frozenset(GENERAL_KEYS)  # what the general path reads into the canonical request
_RANK = FrozenMap({key: n for n, key in enumerate(CARRIED)})
_BOTH = frozenset({"stream_options"})  # read by the direct path, and kept by OpenAI alone


def _keys_kept(body: bytes | str) -> tuple[Body, dict[str, Any]]:
    """The request without the top-level keys only OpenAI keeps, and those keys.

    The general path keeps every key it does not read in the request's
    OpenAI extras, and the targets report each one that says something as
    lost: the writers report the same. A key it reads (a setting the
    direct path does not write) goes the general way.
    """
    known, kept = _split(_top_level(body), _FIELDS, _READ, _BOTH)
    # The general path reports them in the order its decoder keeps them: the
    # body's, or the fast decoder's own when it reads every one of them (and
    # may not, for a reason of its own). Where the two differ, it goes there.
    said = [key for key, value in kept.items() if not neutral("openai", key, value)]
    ranks = [_RANK.get(key, -1) for key in said]
    if len(said) > 1 and -1 not in ranks and ranks != sorted(ranks):
        raise Fallback
    try:
        return _decoder.decode(_encode(known)), as_kept(kept)  # a key like a hint: escaped
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        raise Fallback from None


def _split(
    keys: dict[str, Raw],
    fields: frozenset[str],
    read: frozenset[str],
    both: frozenset[str] = frozenset(),
) -> tuple[dict[str, Raw], dict[str, Any]]:
    """``keys`` apart: those the typed request names, as sent, and those the general path keeps.

    A key in ``both`` is each; a key in ``read`` (one the general path reads
    otherwise) sends the request the general way.

    Raises
    ------
    Fallback
        For a key in ``read``.
    """
    known: dict[str, Raw] = {}
    kept: dict[str, Any] = {}
    for key, value in keys.items():
        if key in fields:
            known[key] = value
            if key not in both:
                continue
        elif key in read:
            raise Fallback
        try:
            kept[key] = msgspec.json.decode(value)
        except (msgspec.DecodeError, UnicodeError, RecursionError):
            raise Fallback from None
    return known, kept


def _top_level(body: bytes | str) -> dict[str, Raw]:
    """The body's top-level keys and their values as sent (a key sent twice: its last).

    Raises
    ------
    Fallback
        When the body is not a JSON object.
    """
    try:
        return _keyed.decode(body)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        raise Fallback from None


def readable(body: bytes | str) -> bool:
    """Whether ``body`` is UTF-8 throughout, as the general path reads it.

    The readers pass over some values unread (a value kept as sent, data
    copied as sent, a key's first value when it is sent twice), and msgspec
    checks the UTF-8 of a value it reads, not of one it passes over: a body
    with other bytes anywhere goes the general way, which refuses it.
    """
    if isinstance(body, str) or body.isascii():
        return True
    try:
        body.decode()
    except UnicodeDecodeError:
        return False
    return True


# What each target reports of the keys a source alone keeps, by the keys as
# written: an application sends the same few (an ``include``, a ``store``) with
# every request. Bounded, as the tools are.
_KEPT_LOSSES: dict[tuple[str, str, bytes], tuple[Loss, ...]] = {}


def kept_losses(target: str, r: Read) -> list[Loss]:
    """The losses ``target`` reports for ``r.kept``: what the general path's encoder reports.

    :meth:`~.._wire.Encoding.own` finds them (the rule is written once), once
    per target, source and kept keys and values.
    """
    key = (target, r.source, _encode(r.kept))
    found = _KEPT_LOSSES.get(key)
    if found is None:
        losses: list[Loss] = []
        Encoding(target, losses).own({r.source: r.kept}, "$")
        found = tuple(losses)
        if len(_KEPT_LOSSES) >= CACHE_LIMIT:
            _KEPT_LOSSES.clear()
        _KEPT_LOSSES[key] = found
    return list(found)


def _choice(value: str | _Forced | UnsetType, tools: Tools | None) -> tuple[str | None, str | None]:
    """The tool choice's mode and the tool it names, as the general path reads them."""
    if value is UNSET:
        return None, None
    if type(value) is str:
        mode = "required" if value == "any" else value
        if mode == "required" and tools is None:
            raise Fallback  # the preflights' rule: nothing to call
        return mode, None
    assert isinstance(value, _Forced)
    name = value.function.name
    if tools is None or all(spec.function.name != name for spec in tools.specs):
        raise Fallback  # the preflights' rule: a tool that is not sent
    return "tool", name


def _messages(
    messages: list[Message], images: list[tuple[str, Any]], results: bool = False
) -> tuple[dict[str, Raw], dict[str, str]]:
    """Check the conversation; each call's arguments and tool name, by id.

    ``results``: a tool message may hold a list of text parts (the reader
    checked them), as an Anthropic result's text blocks are read.
    """
    arguments: dict[str, Raw] = {}
    names: dict[str, str] = {}
    started = False
    previous = ""  # the role of the last message
    pending: set[str] = set()  # calls of the last assistant message not answered yet
    for m in messages:
        role = m.role
        content = m.content
        if role == "assistant":
            if not started or previous == "assistant" or pending or m.tool_call_id is not UNSET:
                raise Fallback  # the first turn is a user's; targets join answers
            _assistant(m, arguments, names, pending)
        elif (
            m.tool_calls is not UNSET
            or m.reasoning_content is not UNSET
            or m.reasoning is not UNSET
        ):
            raise Fallback
        elif role == "tool":
            if previous != "assistant" and previous != "tool":
                raise Fallback
            if type(content) is not str and (not results or type(content) is not list):
                raise Fallback
            if m.tool_call_id not in pending:
                raise Fallback
            pending.discard(m.tool_call_id)
        elif m.tool_call_id is not UNSET or pending:
            raise Fallback  # a call left unanswered before the conversation goes on
        elif role == "user":
            _user(content, images)
        elif role in INSTRUCTIONS:
            if started or type(content) is not str or not content:
                raise Fallback
            continue
        else:
            raise Fallback
        started = True
        previous = role
    if not started or (pending and previous != "assistant"):
        raise Fallback
    return arguments, names


def _user(content: Any, images: list[tuple[str, Any]]) -> None:
    if type(content) is str:
        if not content:
            raise Fallback
        return
    if type(content) is not list or not content:
        raise Fallback
    for part in content:
        kind = part.type
        if kind == "text":
            if not part.text or part.image_url is not UNSET or part.file is not UNSET:
                raise Fallback
            if part.document_url is not UNSET:
                raise Fallback
        elif part.document_url is not UNSET:
            if kind != "document_url" or part.text is not UNSET:
                raise Fallback
            if part.image_url is not UNSET or part.file is not UNSET:
                raise Fallback
            images.append(document_url(part.document_url))
        elif kind == "image_url" and part.text is UNSET and part.file is UNSET:
            if part.image_url is UNSET:
                raise Fallback
            images.append(image(part.image_url.url))
        elif kind == "file" and part.text is UNSET and part.image_url is UNSET:
            if part.file is UNSET:
                raise Fallback
            images.append(document(part.file))
        else:
            raise Fallback


_PDF = b'"data:application/pdf;base64,'


def document(f: _File) -> tuple[str, Any]:
    """A file part's source: ``("", file_id)``, or a PDF's media type and base64 data.

    Anthropic writes either as a document block; Gemini writes the PDF as
    inline data and leaves the id out (reported). Any other file goes the
    general way.
    """
    if f.file_id is not UNSET:
        if f.file_data is not UNSET or not f.file_id:
            raise Fallback
        return "", f.file_id
    if f.file_data is UNSET:
        raise Fallback
    pdf = _pdf(bytes(f.file_data))
    if pdf is None:
        raise Fallback
    return pdf


def _pdf(data: bytes) -> tuple[str, Any] | None:
    """A PDF's data URL (a JSON string as sent): its media type and base64 data, as sent.

    None when it is not one, or has an escape or a character outside ASCII.
    """
    if data.startswith(_PDF) and data.isascii() and b"\\" not in data:
        return "application/pdf", Raw(b'"' + memoryview(data)[len(_PDF) :])
    return None


def document_url(url: Raw) -> tuple[str, Any]:
    """A ``document_url`` part's source: a PDF's media type and base64 data, or ``("", url)``.

    The general path reads the URL as a file part: a PDF's data URL as a
    ``file``'s, an https URL by the rule of an image's. Anything else goes
    the general way.
    """
    data = bytes(url)
    pdf = _pdf(data)
    if pdf is not None:
        return pdf
    if data[:9] != b'"https://':
        raise Fallback
    return image(url)


def image(url: Raw) -> tuple[str, Any]:
    """The media type and base64 data of an image's data URL.

    The data is the JSON string as sent (a Raw, from the quote after the
    comma) when the URL has no escape and no character outside ASCII: msgspec
    writes such a string byte for byte, so the image is copied once, not read
    and written. Else it is read as text and split by the same rule.
    """
    data = bytes(url)
    if data[:9] == b'"https://' and data.isascii() and b"\\" not in data:
        # An image by URL: Anthropic fetches it ("" as the media type says so);
        # Gemini gets the media type its extension names, as the general path.
        if len(data) > URL_LIMIT or not data[9:-1].decode().isprintable() or b" " in data:
            raise Fallback
        return "", url
    if data.isascii() and b"\\" not in data:
        # split_data_url's rule, on the bytes: one quote before the text.
        end = data.find(b";base64,", 6, 301)
        if data[:6] != b'"data:' or end <= 6:
            raise Fallback
        media_type = data[6:end].decode()
        if media_type not in IMAGE_TYPES:
            raise Fallback
        return media_type, Raw(b'"' + memoryview(data)[end + 8 :])
    try:
        text = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeError):
        raise Fallback from None
    split = split_data_url(text) if type(text) is str else None
    if split is None or split[0] not in IMAGE_TYPES:
        raise Fallback
    return split


def _assistant(
    m: Message, arguments: dict[str, Raw], names: dict[str, str], pending: set[str]
) -> None:
    content = m.content
    if m.tool_calls is not UNSET and not m.tool_calls:
        m.tool_calls = UNSET  # "tool_calls": [] is no call, as the general path reads it
    if content == "" and (
        m.tool_calls is UNSET or m.reasoning is not UNSET or m.reasoning_content is not UNSET
    ):
        raise Fallback  # an empty text beside calls alone: Anthropic's writer reports it
    if type(content) is list:
        # Text parts, each written as a text block or part; none empty.
        if not content and m.tool_calls is UNSET:
            raise Fallback
        for part in content:
            if part.type != "text" or not part.text or part.image_url is not UNSET:
                raise Fallback
            if part.file is not UNSET:
                raise Fallback
    if m.reasoning is not UNSET and m.reasoning_content is not UNSET:
        raise Fallback  # the general path keeps the second as sent
    calls = m.tool_calls
    if calls is UNSET:
        if type(content) is not str and type(content) is not list:
            raise Fallback  # nothing to send
        return
    raw = _raw.decode
    for c in calls:
        id_ = c.id
        name = c.function.name
        if not id_ or not name or id_ in names or wire_id(id_) != id_:
            raise Fallback
        try:
            data = raw(c.function.arguments.encode())
        except msgspec.DecodeError:
            data = NOT_JSON  # an invalid call: written with {} and reported, after the others
        except (UnicodeError, RecursionError):
            raise Fallback from None
        else:
            if bytes(data)[:1] != b"{":
                raise Fallback
        arguments[id_] = data
        names[id_] = name
        pending.add(id_)


# Each array of tools checked, by its bytes: an application sends the same
# tools with every request. Bounded, so made-up arrays cannot grow it.
_TOOLS: dict[bytes, Tools | None] = {}
CACHE_LIMIT = 256
_encode = msgspec.json.Encoder().encode
_specs = msgspec.json.Decoder(list[ToolSpec])


def runnable(tools: Tools | None, choice: str | None, arguments: dict[str, Raw]) -> None:
    """Decline tools no target runs (all of them the source's own) beside a choice or calls.

    The targets then write no tools, and each has its own way with a history
    of calls without them, and with a choice other than ``"auto"`` (see
    :func:`tool_choice`): the general path's.

    Raises
    ------
    Fallback
        When every tool is the source's own, beside a call or such a choice.
    """
    if tools is not None and not tools.specs and (choice not in (None, "auto") or arguments):
        raise Fallback


def tool_choice(r: Read, family: str, losses: list[Loss]) -> str | None:
    """The tool choice's mode ``family`` writes, after the tools' losses.

    When every tool is the source's own (none written), an ``"auto"`` choice
    is left out too, and reported, as the general encoders of OpenAI Chat,
    the Responses API, Anthropic and Gemini leave it: it would be refused.
    """
    tools = r.tools
    if r.choice is not None and tools is not None and not tools.specs:
        losses.append(Loss("$.tool_choice", choice_cannot_run(family)))
        return None
    return r.choice


class _Kind(Struct, kw_only=True, gc=False):
    """A tool's type, whatever else it holds."""

    type: Any = UNSET


_tool_items = msgspec.json.Decoder(list[Raw])
_tool_kind = msgspec.json.Decoder(_Kind)


def split_tools(
    key: bytes, decoder: msgspec.json.Decoder[T], usual: Callable[[Any], bool | None]
) -> tuple[list[tuple[int, T]], tuple[int, ...]] | None:
    """The array's usual tools, each by its index, read by ``decoder``; the others' indexes.

    ``usual(type)`` tells a tool's ``type``: True, a function tool the source
    reads (``decoder`` must take it); False, a tool only the source's
    provider runs (it must be well-formed JSON, see :func:`well_formed`);
    None, one the general path refuses. None when the array goes the
    general way.
    """
    try:
        items = _tool_items.decode(key)
        kinds = [_tool_kind.decode(item).type for item in items]
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None  # the general path's error: a tool that is not an object
    read: list[tuple[int, T]] = []
    foreign: list[int] = []
    for k, (item, kind) in enumerate(zip(items, kinds, strict=True)):
        verdict = usual(kind)
        if verdict:
            try:
                read.append((k, decoder.decode(item)))
            except (msgspec.DecodeError, UnicodeError, RecursionError):
                return None  # a tool of the usual type the general path reads otherwise
        elif verdict is False and well_formed(item):
            foreign.append(k)
        else:
            return None  # the general path's error
    return read, tuple(foreign)


def well_formed(item: bytes | Raw) -> bool:
    """Whether ``item`` is JSON the general path reads: UTF-8 throughout, not deep.

    For what the direct path passes over without reading (a tool only the
    source runs, left out by every target): the general path reads the whole
    body, and refuses one that is not UTF-8 or that nests deeper than the
    parser's stack allows (a depth that moves with the caller's own). A value
    nested past :data:`~chatcodec._depth.MAX_DEPTH` goes the general way.
    """
    try:
        check_depth(msgspec.json.decode(item), "$")
    except (msgspec.DecodeError, UnicodeError, RecursionError, DepthError):
        return False
    return True


def once(cache: dict[bytes, T | None], key: bytes, make: Callable[[A], T | None], arg: A) -> T:
    """``make(arg)``, kept in ``cache`` by ``key`` (cleared when full).

    Raises
    ------
    Fallback
        When ``make`` gave None: this array of tools goes the general way.
    """
    try:
        found = cache[key]
    except KeyError:
        found = make(arg)
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[key] = found
    if found is None:
        raise Fallback
    return found


def _tools(raw: Raw) -> Tools:
    key = bytes(raw)
    return once(_TOOLS, key, _check_tools, key)


def _check_tools(key: bytes) -> Tools | None:
    """The tools, if every one is usual (its schema too); else None."""
    try:
        specs = _specs.decode(key)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
    return check_specs("openai", key, specs)


def check_specs(
    family: str,
    key: bytes,
    specs: list[ToolSpec],
    extras: tuple[tuple[int, dict[str, Any]], ...] = (),
    foreign: tuple[int, ...] = (),
) -> Tools | None:
    """The tools of the array ``key``, read as ``specs``, if every one is usual; else None.

    ``family``: the source's, whose reading of the array ``specs`` are;
    ``extras``: each tool's extras, by index, as the general path keeps them;
    ``foreign``: the indexes of the tools only the source's provider runs.
    """
    if not specs and not foreign:
        return None
    schemas: list[Schema] = []
    seen: set[str] = set()
    for t in specs:
        f = t.function
        name = f.name
        if name in seen or name[:1].isdigit():
            return None
        seen.add(name)
        try:
            check_name(name)
        except ValueError:
            return None
        description = f.description
        if type(description) is str and len(description) > DESCRIPTION_LIMIT:
            return None
        schema = _examine(bytes(f.parameters))
        if schema is None or (f.strict is True and not schema.closed):
            return None
        schemas.append(schema)
    return Tools(b"%s\0%s" % (family.encode(), key), specs, schemas, extras, foreign)


def _examine(data: bytes) -> Schema | None:
    """The rules a schema passes (ToolDefinition's, the preflights'); None: not an object schema."""
    try:
        params = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
    if type(params) is not dict or params.get("type") != "object":
        return None
    try:
        check_depth(params, "$.parameters")  # before the walks below
    except DepthError:
        return None  # the general path refuses it, naming the tool
    try:
        ToolDefinition("t", None, params)  # its schema rules: else the tool is kept opaque
    except ValidationError:
        return None
    return Schema(
        Raw(data) if _encode(params) == data else params,
        not any_open(params) and is_closed(params),
        not unsupported(params, "anthropic", True),
        fits(params),  # so no keyword outside gemini's subset either
    )
