"""Lowering: transcript kinds turned into what every provider encoder takes.

A transcript holds kinds no provider wire has: file references, MCP
resources, images with their recognized text, tool approvals, parts of a
kind a newer version wrote. Before an encoder writes a request,
:func:`lower` turns each into a kind the encoders know, or leaves it out and
reports it:

- a resolved :class:`~chatcodec.FileReference` becomes a text part, its lines
  under a line naming the path and range; a pending or failed one is left out;
- an :class:`~chatcodec.McpResource` becomes the text part of its ``text``
  (the rest is storage, not a loss);
- an image whose ``recognition`` is ``"ocr"`` and that has its
  ``recognized_text`` is sent as that text, to every target: OCR was the way
  the application chose to have it read;
- otherwise, without vision, an image becomes the text read from it, or is
  left out; with vision it goes as is (the recognition fields are storage),
  unless it names a local file that :func:`~chatcodec.resolve_image_files`
  did not read: a local path is never sent, the image is left out;
- a denied tool call that nothing answers gets a tool result saying so, after
  the answers its message already has; a call still awaiting approval is
  reported (and left for ``check_request`` to refuse);
- a tool result's ``name``, for a target whose results carry none
  (``result_names=False``), is reported unless the call it answers in the
  request has that name (then the call says it);
- an :class:`~chatcodec.UnknownPart` is left out; a message left with
  nothing to send is left out too (a tool result becomes empty text instead,
  since its call needs an answer).

Strategy: one scan decides whether there is anything to do, and the usual
request, which holds none of these kinds, is returned as is. Only otherwise
are messages rebuilt. The encoder then reports losses by the paths of the
lowered request; :func:`lower` wraps the loss list so that they reach the
caller with the paths of the request it passed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, SupportsIndex

import msgspec

from .._content import FileReference, ImagePart, McpResource, TextPart
from .._control import ControlRecord, UnknownPart
from .._conversation import Conversation, Entry, Transcript
from .._errors import ValidationError
from .._exchange import Request
from .._files import local_path
from .._loss import Loss
from .._messages import (
    AssistantMessage,
    BaseMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ._wire import Encoding

if TYPE_CHECKING:
    from .._control import UnknownRecord

__all__ = ["DENIED_RESULT", "lower", "to_request"]

ResourcePlace = Literal["inline", "system"]
"""Where :func:`to_request` puts MCP resources."""

DENIED_RESULT = "The user denied this tool call."
"""The tool result a denied call gets, by default."""

UNRESOLVED = "a file reference that was not resolved"
NO_STAND_IN = "an image without recognized text, for a target without vision"
VISION_UNAVAILABLE = "vision is unavailable: the image was sent as the text read from it"
UNREAD_IMAGE = "an image by local path that was not read (see resolve_image_files)"
AWAITING = "a tool call awaiting approval"
UNKNOWN_PART = "a part of a kind this version does not know"
EMPTY = "a message with nothing left to send"
CONTROL = "a control record is never sent to a model"
UNKNOWN_RECORD = "a record of a kind this version does not know"
RESULT_NAME = "this target's tool results carry no name, and no call in the request has it"

_INSTRUCTIONS = (SystemMessage, DeveloperMessage)
_ALWAYS = frozenset({FileReference, McpResource, UnknownPart})
_NO_KEEP: frozenset[type] = frozenset()


def lower(
    request: Request,
    enc: Encoding,
    *,
    vision: bool = True,
    denied_result: str = DENIED_RESULT,
    keep: frozenset[type] = _NO_KEEP,
    result_names: bool = True,
) -> Request:
    r"""The request with only the kinds every provider encoder handles.

    Parameters
    ----------
    request : Request
        The canonical request.
    enc : Encoding
        The encode under way: what is left out is reported to it, by the
        request's paths, and so is what its encoder reports afterwards (its
        loss list is wrapped to map the lowered request's paths back).
    vision : bool, default True
        Whether the target model takes images. Without vision, an image is
        sent as the text read from it (``recognized_text``, else
        ``vision_analysis``) or left out. An image read by OCR
        (``recognition="ocr"`` with ``recognized_text``) is sent as its text
        either way.
    denied_result : str
        The text of the tool result a denied call gets (an error result).
    keep : frozenset of type, optional
        Part kinds the target's encoder writes itself (Anthropic takes an MCP
        resource as a document).
    result_names : bool, default True
        Whether the target's tool results carry the tool's name; when not,
        a name that no call of the request gives back is reported.

    Returns
    -------
    Request
        ``request`` itself when it holds none of these kinds.

    Examples
    --------
    >>> from chatcodec import FileReference, McpResource, user
    >>> from chatcodec.providers._wire import Encoding
    >>> losses = []
    >>> request = Request((user([
    ...     McpResource("docs", "file:///a.md", "# A"),
    ...     FileReference("b.py"),
    ... ]),))
    >>> lowered = lower(request, Encoding("openai", losses))
    >>> lowered.messages[0].content[0].text
    '[resource file:///a.md from docs]\n# A'
    >>> [str(loss) for loss in losses]
    ['a file reference that was not resolved - at `$.messages[0].content[1]`']
    """
    if not _needs(request.messages, vision, keep, result_names):
        return request
    # Any: the tuple may hold what its type does not admit (records, unknown parts).
    messages: tuple[Any, ...] = request.messages
    answered = {m.tool_call_id for m in messages if type(m) is ToolMessage}
    denials = _denials(messages, answered, denied_result, enc)
    out: list[Message] = []
    origin: list[int | None] = []  # None: a result made for a denied call
    parts: dict[int, list[int]] = {}
    moved = False
    called: dict[str, str] = {}  # call id -> tool name, for results' names
    for i, message in enumerate(messages):
        path = f"$.messages[{i}]"
        kind = type(message)
        lowered: Any = message
        index: list[int] | None = None
        if kind is ToolMessage and not result_names and message.name is not None:
            if called.get(message.tool_call_id) != message.name:
                enc.lose(f"{path}.name", RESULT_NAME)
        elif kind is AssistantMessage and not result_names:
            called.update((call.id, call.name) for call in message.tool_calls)
        if kind is UserMessage or kind is ToolMessage:
            assert isinstance(message, UserMessage | ToolMessage)
            content = message.content
            if type(content) is tuple:
                new, index = _parts(content, path, enc, vision, keep)
                if new is not content:
                    if new:
                        lowered = msgspec.structs.replace(message, content=new)
                    elif kind is ToolMessage:
                        # Its call needs an answer: an empty one, not none.
                        lowered = msgspec.structs.replace(message, content="")
                        index = None
                    else:
                        enc.lose(path, EMPTY)
                        lowered = None
        elif kind is AssistantMessage:
            assert isinstance(message, AssistantMessage)
            lowered, index = _assistant(message, path, enc)
        elif not isinstance(message, BaseMessage):
            enc.lose(path, CONTROL if kind is ControlRecord else UNKNOWN_RECORD)
            lowered = None
        if lowered is None:
            moved = True
        else:
            if index is not None:
                parts[len(out)] = index
            out.append(lowered)
            origin.append(i)
        for result in denials.get(i, ()):
            out.append(result)
            origin.append(None)
            moved = True
    if enc.losses is not None and (moved or parts):
        enc.losses = _Paths(enc.losses, origin, parts)
    return msgspec.structs.replace(request, messages=tuple(out))


def _needs(
    messages: tuple[Any, ...], vision: bool, keep: frozenset[type], result_names: bool = True
) -> bool:
    """Whether anything in ``messages`` needs lowering (usually not: one scan)."""
    lowered = _ALWAYS - keep if keep else _ALWAYS
    for message in messages:
        kind = type(message)
        if kind is ToolMessage and not result_names and message.name is not None:
            return True
        if kind is UserMessage or kind is ToolMessage:
            content = message.content
            if type(content) is tuple:
                for part in content:
                    form = type(part)
                    if form in lowered or (form is ImagePart and _lowered_image(part, vision)):
                        return True
        elif kind is AssistantMessage:
            for call in message.tool_calls:
                if call.approval is not None and call.approval != "approved":
                    return True
            content = message.content
            if type(content) is tuple:
                for part in content:
                    if type(part) is UnknownPart:
                        return True
        elif kind not in _INSTRUCTIONS and not isinstance(message, BaseMessage):
            return True
    return False


def _parts(
    content: tuple[Any, ...], path: str, enc: Encoding, vision: bool, keep: frozenset[type]
) -> tuple[tuple[Any, ...], list[int] | None]:
    """The parts lowered (``content`` itself if none changed), and where each came from.

    The index list is ``None`` when no part was left out.
    """
    new: list[Any] = []
    index: list[int] = []
    changed = False
    for j, part in enumerate(content):
        form = type(part)
        if form in keep or (
            form is not FileReference
            and form is not McpResource
            and form is not UnknownPart
            and (form is not ImagePart or not _lowered_image(part, vision))
        ):
            new.append(part)
            index.append(j)
            continue
        changed = True
        where = f"{path}.content[{j}]"
        if form is FileReference:
            if part.status == "resolved":
                new.append(TextPart(_file_text(part), extras=part.extras))
                index.append(j)
            else:
                enc.lose(where, UNRESOLVED)
        elif form is McpResource:
            new.append(TextPart(part.text, extras=part.extras))
            index.append(j)
        elif form is ImagePart:
            if _ocr(part):
                text = part.recognized_text
            elif not vision:
                text = part.text_stand_in or part.vision_analysis
            else:
                text = None
            if text:
                new.append(TextPart(text, cache=part.cache))
                index.append(j)
                if not vision and part.recognition == "auto":
                    # "auto" left the choice to the target: say that it had no vision.
                    enc.lose(where, VISION_UNAVAILABLE)
            else:
                enc.lose(where, UNREAD_IMAGE if vision else NO_STAND_IN)
        else:
            enc.lose(where, UNKNOWN_PART)
    if not changed:
        return content, None
    return tuple(new), (index if len(index) != len(content) else None)


def _lowered_image(part: ImagePart, vision: bool) -> bool:
    """Whether the image is not sent as it is: as text, or not at all."""
    return not vision or _ocr(part) or local_path(part.url) is not None


def _ocr(part: ImagePart) -> bool:
    """Whether the image was read by OCR, and the text it gave is there to send."""
    return part.recognition == "ocr" and bool(part.recognized_text)


def _file_text(part: FileReference) -> str:
    """A resolved file's lines under a line naming its path and range."""
    start, end = part.start_line, part.end_line
    if start is None:
        head = f"File: {part.path}"
    elif end is None:
        head = f"File: {part.path} (from line {start})"
    else:
        head = f"File: {part.path} (lines {start}-{end})"
    return f"{head}\n{part.content}"


def _assistant(
    message: AssistantMessage, path: str, enc: Encoding
) -> tuple[AssistantMessage | None, list[int] | None]:
    """The message without unknown parts (``None`` if nothing is left), and where each came from."""
    content: Any = message.content
    if type(content) is not tuple or not any(type(p) is UnknownPart for p in content):
        return message, None
    kept: list[Any] = []
    index: list[int] = []
    for j, part in enumerate(content):
        if type(part) is UnknownPart:
            enc.lose(f"{path}.content[{j}]", UNKNOWN_PART)
        else:
            kept.append(part)
            index.append(j)
    if kept:
        return msgspec.structs.replace(message, content=tuple(kept)), index
    if message.tool_calls or message.invalid_tool_calls:
        return msgspec.structs.replace(message, content=None), None
    enc.lose(path, EMPTY)
    return None, None


def _denials(
    messages: tuple[Any, ...], answered: set[str], text: str, enc: Encoding
) -> dict[int, list[ToolMessage]]:
    """The results for unanswered denied calls, by the index they follow.

    They go after the answers the call's message already has: the tool
    messages right after it, or, when a provider joined several calling
    messages into one turn (Gemini), after the last answer to one of its calls
    further on. Unanswered pending calls are reported here.
    """
    found: dict[int, list[ToolMessage]] = {}
    n = len(messages)
    for i, message in enumerate(messages):
        if type(message) is not AssistantMessage:
            continue
        results: list[ToolMessage] = []
        for k, call in enumerate(message.tool_calls):
            approval = call.approval
            if approval is None or approval == "approved" or call.id in answered:
                continue
            if approval == "denied":
                results.append(ToolMessage(call.id, text, is_error=True))
            else:
                enc.lose(f"$.messages[{i}].tool_calls[{k}]", AWAITING)
        if not results:
            continue
        after = i
        j = i + 1
        while j < n and type(messages[j]) is ToolMessage:
            after = j
            j += 1
        ids = {call.id for call in message.tool_calls}
        while j < n and type(later := messages[j]) in (ToolMessage, AssistantMessage):
            if type(later) is ToolMessage and later.tool_call_id in ids:
                after = j
            j += 1
        found.setdefault(after, []).extend(results)
    return found


_AT = re.compile(r"\$\.messages\[(\d+)\](?:\.content\[(\d+)\])?")


class _Paths(list[Loss]):
    """The caller's loss list, seen from the lowered request: paths are mapped back.

    A loss about a result made for a denied call is not reported: the result
    is chatcodec's, and the denial it carries reaches the model.
    """

    __slots__ = ("origin", "parts", "target")

    def __init__(
        self, target: list[Loss], origin: list[int | None], parts: dict[int, list[int]]
    ) -> None:
        super().__init__()
        self.target = target
        self.origin = origin
        self.parts = parts

    def append(self, loss: Loss) -> None:
        path = self.map(loss.path)
        if path is not None:
            self.target.append(Loss(path, loss.reason) if path != loss.path else loss)

    def map(self, path: str) -> str | None:
        """The caller's path for the lowered request's ``path`` (None: made by lowering)."""
        match = _AT.match(path)
        if match is None:
            return path
        new = int(match[1])
        if new >= len(self.origin):
            return path
        source = self.origin[new]
        if source is None:
            return None
        rest = path[match.end() :]
        if match[2] is None:
            return f"$.messages[{source}]{rest}"
        j = int(match[2])
        index = self.parts.get(new)
        if index is not None and j < len(index):
            j = index[j]
        return f"$.messages[{source}].content[{j}]{rest}"

    def extend(self, losses: Iterable[Loss]) -> None:
        for loss in losses:
            self.append(loss)

    def __iadd__(self, losses: Iterable[Loss]) -> _Paths:  # type: ignore[override,misc]
        self.extend(losses)
        return self

    def insert(self, index: SupportsIndex, loss: Loss) -> None:
        self.append(loss)


def to_request(
    records: Transcript | Conversation | Iterable[Entry | UnknownRecord | BaseMessage],
    *,
    mcp_resources: ResourcePlace = "inline",
    **fields: Any,
) -> tuple[Request, list[Loss]]:
    """Build a request from the records of a transcript or conversation.

    Control records are never sent to a model, and a record of a kind this
    version does not know cannot be: both are left out and reported, by
    their index in ``records``. What a provider cannot take of the messages
    is handled when the request is encoded (each encoder reports it).

    Parameters
    ----------
    records : Transcript, Conversation or iterable of records
        Messages, control records and unknown records, in order.
    mcp_resources : {"inline", "system"}, default "inline"
        Where MCP resources go. ``"inline"``: where they are, each as the
        text part of its :attr:`~chatcodec.McpResource.text` (or, for
        Anthropic, a document). ``"system"``: out of their messages, each
        as a system message of its text after the leading system messages,
        so that the model sees them as information the system gave; a user
        message left with nothing else is left out (its content moved), a
        tool result keeps empty text.
    **fields
        The request's other fields (``model``, ``tools``, ``max_tokens``...).

    Returns
    -------
    Request
        The messages, in order, and ``fields``.
    list of Loss
        One per record left out, at ``$.records[i]``.

    Raises
    ------
    ValidationError
        If ``mcp_resources`` is neither of its values.

    Examples
    --------
    >>> request, losses = to_request(
    ...     [user("Plan it."), mode_change("plan", "act"), user("Now do it.")], model="m"
    ... )
    >>> len(request.messages), [str(loss) for loss in losses]
    (2, ['a control record is never sent to a model - at `$.records[1]`'])
    >>> from chatcodec import McpResource, system
    >>> schema = McpResource("db", "db://schema", "CREATE TABLE t (id int);")
    >>> request, _ = to_request(
    ...     [system("Answer in SQL."), user(["Count the rows.", schema])], mcp_resources="system"
    ... )
    >>> [str(m) for m in request.messages]
    ['system: 14 chars', 'system: 55 chars', 'user: 1 parts (text)']
    """
    if mcp_resources not in ("inline", "system"):
        raise ValidationError("must be 'inline' or 'system'", "$.mcp_resources")
    items: Iterable[Any] = (
        records.records if isinstance(records, Transcript | Conversation) else records
    )
    messages: list[Message] = []
    losses: list[Loss] = []
    for i, record in enumerate(items):
        if isinstance(record, BaseMessage):
            messages.append(record)  # type: ignore[arg-type]
        else:
            reason = CONTROL if isinstance(record, ControlRecord) else UNKNOWN_RECORD
            losses.append(Loss(f"$.records[{i}]", reason))
    if mcp_resources == "system":
        messages = _resources_to_system(messages)
    return Request(tuple(messages), **fields), losses


def _resources_to_system(messages: list[Message]) -> list[Message]:
    """The MCP resources of user and tool messages as system messages, after the leading ones."""
    head = 0
    while head < len(messages) and isinstance(messages[head], _INSTRUCTIONS):
        head += 1
    found: list[Message] = []
    out: list[Message] = []
    for message in messages:
        content = getattr(message, "content", None)
        if not isinstance(message, UserMessage | ToolMessage) or not (
            isinstance(content, tuple) and any(type(p) is McpResource for p in content)
        ):
            out.append(message)
            continue
        rest = tuple(p for p in content if type(p) is not McpResource)
        found.extend(SystemMessage(p.text) for p in content if type(p) is McpResource)
        if rest:
            out.append(msgspec.structs.replace(message, content=rest))
        elif isinstance(message, ToolMessage):
            out.append(msgspec.structs.replace(message, content=""))
    return out[:head] + found + out[head:]
