"""The five messages, a union tagged on ``role``, and their factories.

Each class checks its own rules in ``__post_init__``, which runs both when a
message is built and when one is decoded (msgspec turns the ``ValueError`` into
a ``ValidationError`` with the path).  Every rule here is O(1), except the
duplicate-id check, which is O(number of tool calls).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, get_args

import msgspec

from ._cache import CachePoint, check_cache
from ._content import AssistantPart, ContentPart, ReasoningPart, TextPart
from ._control import UnknownPart
from ._errors import NotFoundError, ValidationError
from ._fields import check_extras, check_items
from ._frozen import FrozenMap, freeze_fields
from ._record import Record
from ._roles import Role
from ._tools import Approval, InvalidToolCall, ToolCall, ToolResultDetails

__all__ = [
    "MESSAGE_TYPES",
    "AssistantMessage",
    "BaseMessage",
    "DeveloperMessage",
    "Message",
    "SystemMessage",
    "ToolMessage",
    "ToolResult",
    "UserMessage",
    "assistant",
    "developer",
    "system",
    "tool_result",
    "user",
]

_EMPTY = "must not be empty"
_TEXT = "must be a string"
_TEXT_OR_PARTS = "must be a string or a tuple of parts"
_CALLS = "must be a tuple of tool calls"
_BOOL = "must be true or false"
_PART = "must be a content part of a kind this message takes"
# What decoding puts in each content (UnknownPart: a kind a newer version wrote).
_USER_PARTS = frozenset({*get_args(ContentPart), UnknownPart})
_ASSISTANT_PARTS = frozenset({*get_args(AssistantPart), UnknownPart})
_TOOL_CALL = frozenset({ToolCall})
_INVALID_CALL = frozenset({InvalidToolCall})


def _check_text(value: object, path: str, kinds: type | tuple[type, ...], rule: str) -> None:
    """The slow branch of a text rule: why ``value`` failed the exact type test.

    The rules test ``type(x) is str`` (or ``tuple``) first, which costs one
    comparison; a subclass of an allowed type lands here and passes if it is
    not empty.
    """
    if not isinstance(value, kinds):
        raise ValidationError(rule, path)
    if not value:
        raise ValidationError(_EMPTY, path)


def _own_fields(message: BaseMessage) -> None:
    """Check ``extras`` and freeze ``metadata`` (the slow branch: one of them is set)."""
    if message.extras is not None and type(message.extras) is not dict:
        check_extras(message.extras)
    if message.metadata is not None:
        freeze_fields(message, "metadata")


def _check_id(value: object) -> None:
    if not isinstance(value, str):
        raise ValidationError(_TEXT, "$.id")


class BaseMessage(Record, frozen=True, tag_field="role", kw_only=True):
    """What every message has: a role, and an id and metadata kept in storage.

    Functions that take messages accept any ``BaseMessage``; decoding and
    narrowing use the :data:`Message` union of the five concrete classes.
    """

    role: ClassVar[Role]

    id: str | None = None
    """An id for the message in storage."""
    metadata: dict[str, Any] | None = None
    """The application's own data about the message (JSON values)."""

    def __str__(self) -> str:
        return f"{self.role.value}: {self._sizes()}"

    def _sizes(self) -> str:
        return _describe(getattr(self, "content", None))


def _describe(content: object) -> str:
    if content is None:
        return "no content"
    if isinstance(content, str):
        return f"{len(content)} chars"
    if isinstance(content, tuple):
        kinds = ", ".join(_kind(part) for part in content)
        return f"{len(content)} parts ({kinds})"
    return f"<{type(content).__name__}>"


def _kind(part: object) -> str:
    config = getattr(type(part), "__struct_config__", None)
    if config is not None and config.tag is not None:
        return str(config.tag)
    return "unknown"


class _CachedMessage(BaseMessage, frozen=True, kw_only=True):
    """A message a cache point may close (see :class:`~chatcodec.CachePoint`)."""

    cache: CachePoint | None = None
    """Where a provider may cache the prompt up to: this message, included."""


class _InstructionMessage(_CachedMessage, frozen=True):
    content: str

    def __post_init__(self) -> None:
        content = self.content
        if not content or type(content) is not str:
            _check_text(content, "$.content", str, _TEXT)
        if self.id is not None and type(self.id) is not str:
            _check_id(self.id)
        if self.metadata is not None or self.extras is not None:
            _own_fields(self)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)

    @property
    def text(self) -> str:
        """The instructions' text (every message has ``text``)."""
        return self.content


class SystemMessage(_InstructionMessage, frozen=True, tag="system"):
    """Instructions for the model from the application."""

    role: ClassVar[Role] = Role.SYSTEM


class DeveloperMessage(_InstructionMessage, frozen=True, tag="developer"):
    """Instructions from the developer (OpenAI's newer name for system)."""

    role: ClassVar[Role] = Role.DEVELOPER


class UserMessage(BaseMessage, frozen=True, tag="user"):
    """What the user says: text, or a tuple of content parts.

    Examples
    --------
    >>> msg = UserMessage("What is the weather in Paris?")
    >>> str(msg)
    'user: 29 chars'
    >>> msg
    UserMessage(content=<29 chars>)
    """

    role: ClassVar[Role] = Role.USER
    content: str | tuple[ContentPart, ...]

    def __post_init__(self) -> None:
        content = self.content
        if type(content) is not str:
            if type(content) is not tuple or not content:
                _check_text(content, "$.content", (str, tuple), _TEXT_OR_PARTS)
            if not isinstance(content, str):
                for part in content:
                    if type(part) not in _USER_PARTS:
                        check_items(content, _USER_PARTS, "$.content", _PART)
                        break
        elif not content:
            raise ValidationError(_EMPTY, "$.content")
        if self.id is not None and type(self.id) is not str:
            _check_id(self.id)
        if self.metadata is not None or self.extras is not None:
            _own_fields(self)

    @property
    def text(self) -> str:
        """The text of the message: the string, or its text parts joined."""
        content = self.content
        if isinstance(content, str):
            return content
        return "".join(part.text for part in content if isinstance(part, TextPart))


class AssistantMessage(BaseMessage, frozen=True, tag="assistant"):
    """What the model says: text, tool calls, or both.

    ``content`` is ``None`` when the model sent no text (``""`` is text that
    happens to be empty), or a tuple of parts in the order the model sent them:
    text, reasoning, refusal, and blocks only one provider knows. Tool calls
    follow the content. Tool calls whose arguments were not a JSON object are
    kept apart in ``invalid_tool_calls``.
    """

    role: ClassVar[Role] = Role.ASSISTANT
    content: str | tuple[AssistantPart, ...] | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    invalid_tool_calls: tuple[InvalidToolCall, ...] = ()

    def __post_init__(self) -> None:
        content = self.content
        calls = self.tool_calls
        invalid = self.invalid_tool_calls
        if content is None:
            if not calls and not invalid:
                raise ValidationError("must have content or tool calls", "$.content")
        elif (
            type(content) is not str
            and type(content) is not tuple
            and not isinstance(content, str | tuple)
        ):
            raise ValidationError(_TEXT_OR_PARTS, "$.content")
        if type(calls) is not tuple and not isinstance(calls, tuple):
            raise ValidationError(_CALLS, "$.tool_calls")
        if type(invalid) is not tuple and not isinstance(invalid, tuple):
            raise ValidationError(_CALLS, "$.invalid_tool_calls")
        if content is not None and type(content) is not str and not isinstance(content, str):
            for part in content:
                if type(part) not in _ASSISTANT_PARTS:
                    check_items(content, _ASSISTANT_PARTS, "$.content", _PART)
                    break
        # The usual one or two calls are looked at without a loop.
        if calls and (
            type(calls[0]) is not ToolCall or type(calls[-1]) is not ToolCall or len(calls) > 2
        ):
            check_items(calls, _TOOL_CALL, "$.tool_calls", "must be a ToolCall")
        if invalid:
            check_items(
                invalid, _INVALID_CALL, "$.invalid_tool_calls", "must be an InvalidToolCall"
            )
        if self.id is not None and type(self.id) is not str:
            _check_id(self.id)
        if self.metadata is not None or self.extras is not None:
            _own_fields(self)
        # Pairwise for the usual one to three calls: no list or set to build.
        n = len(calls)
        if invalid or n > 3:
            ids = [call.id for call in calls] + [call.id for call in invalid if call.id]
            duplicate = len(set(ids)) != len(ids)
        elif n == 2:
            duplicate = calls[0].id == calls[1].id
        elif n == 3:
            a, b, c = calls[0].id, calls[1].id, calls[2].id
            duplicate = a in (b, c) or b == c
        else:
            duplicate = False
        if duplicate:
            raise ValidationError("tool call ids must be unique", "$.tool_calls")

    @property
    def text(self) -> str:
        """The answer's text: the string, or its text parts joined."""
        content = self.content
        if content is None or isinstance(content, str):
            return content or ""
        return "".join(part.text for part in content if isinstance(part, TextPart))

    def with_approval(self, call_id: str, approval: Approval | None) -> AssistantMessage:
        """A copy in which the call ``call_id`` has the approval status ``approval``.

        Raises
        ------
        NotFoundError
            If no tool call of this message has that id (also a ``KeyError``).
        """
        calls = self.tool_calls
        for n, call in enumerate(calls):
            if call.id == call_id:
                updated = (*calls[:n], call.with_approval(approval), *calls[n + 1 :])
                return msgspec.structs.replace(self, tool_calls=updated)
        raise NotFoundError(call_id, "tool call")

    @property
    def reasoning(self) -> str:
        """The reasoning text, its parts joined (``""`` when there is none)."""
        content = self.content
        if content is None or isinstance(content, str):
            return ""
        return "".join(part.text for part in content if isinstance(part, ReasoningPart))

    def _sizes(self) -> str:
        sizes = _describe(self.content)
        if self.tool_calls:
            sizes += f", {len(self.tool_calls)} tool calls"
        if self.invalid_tool_calls:
            sizes += f", {len(self.invalid_tool_calls)} invalid tool calls"
        return sizes


class ToolMessage(_CachedMessage, frozen=True, tag="tool"):
    """A tool's result, answering the call ``tool_call_id``.

    ``content`` is text (possibly empty) or parts (text, images...);
    ``is_error`` marks a failed run; ``name`` is the name of the tool that
    ran, where the source said it (Gemini's ``functionResponse.name``,
    Ollama's ``tool_name``, OpenAI's ``name``): families that need a name
    send it, so a result whose call was trimmed from the history can still
    be sent; ``details`` holds what the application knows about the run
    (duration, structured output...), kept in storage and not sent to
    models.
    """

    role: ClassVar[Role] = Role.TOOL
    tool_call_id: str
    content: str | tuple[ContentPart, ...]
    is_error: bool = False
    name: str | None = None
    details: ToolResultDetails | None = None

    @property
    def status(self) -> str:
        """``"error"`` or ``"success"``."""
        return "error" if self.is_error else "success"

    def __post_init__(self) -> None:
        call_id = self.tool_call_id
        if not call_id or type(call_id) is not str:
            _check_text(call_id, "$.tool_call_id", str, _TEXT)
        content = self.content
        if (
            type(content) is not str
            and type(content) is not tuple
            and not isinstance(content, str | tuple)
        ):
            raise ValidationError(_TEXT_OR_PARTS, "$.content")
        if self.is_error is not False and self.is_error is not True:
            raise ValidationError(_BOOL, "$.is_error")
        if type(content) is not str and not isinstance(content, str):
            for part in content:
                if type(part) not in _USER_PARTS:
                    check_items(content, _USER_PARTS, "$.content", _PART)
                    break
        if self.details is not None and not isinstance(self.details, ToolResultDetails):
            raise ValidationError("must be ToolResultDetails", "$.details")
        name = self.name
        if name is not None and (not name or type(name) is not str):
            _check_text(name, "$.name", str, _TEXT)
        if self.id is not None and type(self.id) is not str:
            _check_id(self.id)
        if self.metadata is not None or self.extras is not None:
            _own_fields(self)
        if self.cache is not None and type(self.cache) is not CachePoint:
            check_cache(self.cache)

    @property
    def text(self) -> str:
        """The result's text: the string, or its text parts joined."""
        content = self.content
        if isinstance(content, str):
            return content
        return "".join(part.text for part in content if isinstance(part, TextPart))

    def _sizes(self) -> str:
        return _describe(self.content) + (", error" if self.is_error else "")


class ToolResult(Record, frozen=True):
    """The outcome of running a tool.

    Raises
    ------
    ValidationError
        If ``tool_call_id`` is empty or not a string, ``result`` is not a
        string (it may be empty), or ``is_error`` is not a bool; the
        constructors below raise the same.

    Examples
    --------
    >>> ToolResult.error("call_1", "city not found").is_error
    True
    """

    tool_call_id: str
    result: str
    is_error: bool = False
    name: str | None = None

    def __post_init__(self) -> None:
        if not self.tool_call_id or type(self.tool_call_id) is not str:
            _check_text(self.tool_call_id, "$.tool_call_id", str, _TEXT)
        if type(self.result) is not str and not isinstance(self.result, str):
            raise ValidationError(_TEXT, "$.result")
        if self.is_error is not False and self.is_error is not True:
            raise ValidationError(_BOOL, "$.is_error")
        if self.name is not None and (not self.name or type(self.name) is not str):
            _check_text(self.name, "$.name", str, _TEXT)

    @classmethod
    def success(cls, tool_call_id: str, result: str, *, name: str | None = None) -> ToolResult:
        """A successful result (``name``: the tool's, for :class:`ToolMessage`)."""
        return cls(tool_call_id, result, name=name)

    @classmethod
    def error(cls, tool_call_id: str, message: str, *, name: str | None = None) -> ToolResult:
        """A failed result; ``message`` is what the model is told."""
        return cls(tool_call_id, message, is_error=True, name=name)

    def to_message(
        self, *, id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> ToolMessage:
        """The tool message that carries this result."""
        return ToolMessage(
            self.tool_call_id,
            self.result,
            is_error=self.is_error,
            name=self.name,
            id=id,
            metadata=metadata,
        )


Message = SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage
"""Any message; decodes by its ``role`` tag."""

MESSAGE_TYPES: Mapping[Role, type[Message]] = FrozenMap(
    {
        Role.SYSTEM: SystemMessage,
        Role.DEVELOPER: DeveloperMessage,
        Role.USER: UserMessage,
        Role.ASSISTANT: AssistantMessage,
        Role.TOOL: ToolMessage,
    }
)


def system(
    content: str, *, id: str | None = None, metadata: dict[str, Any] | None = None
) -> SystemMessage:
    """Build a system message.

    Raises
    ------
    ValidationError
        If ``content`` is not a string or is empty, or ``id`` is not a string.
    """
    return SystemMessage(content, id=id, metadata=metadata)


def developer(
    content: str, *, id: str | None = None, metadata: dict[str, Any] | None = None
) -> DeveloperMessage:
    """Build a developer message.

    Raises
    ------
    ValidationError
        If ``content`` is not a string or is empty, or ``id`` is not a string.
    """
    return DeveloperMessage(content, id=id, metadata=metadata)


def user(
    content: str | Iterable[ContentPart | str],
    *,
    id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> UserMessage:
    """Build a user message from text or from parts (strings become text parts).

    Raises
    ------
    ValidationError
        If ``content`` is empty (no text, or no parts), a string in it is
        empty, an item is neither a string nor a content part, ``metadata``
        is not a JSON object, or ``id`` is not a string.

    Examples
    --------
    >>> from chatcodec import ImagePart
    >>> str(user(["What is this?", ImagePart(url="https://example.com/cat.png")]))
    'user: 2 parts (text, image)'
    """
    if not isinstance(content, str):
        try:
            parts = iter(content)
        except TypeError:
            raise ValidationError(_TEXT_OR_PARTS, "$.content") from None
        content = tuple(_part(part, n) for n, part in enumerate(parts))
    return UserMessage(content, id=id, metadata=metadata)


def _part(part: ContentPart | str, n: int) -> ContentPart:
    if isinstance(part, str):
        if not part:
            # As for text given alone: an empty string says nothing.
            raise ValidationError(_EMPTY, f"$.content[{n}]")
        return TextPart(part)
    return part


def assistant(
    content: str | None = None,
    tool_calls: Iterable[ToolCall] = (),
    *,
    invalid_tool_calls: Iterable[InvalidToolCall] = (),
    id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> AssistantMessage:
    """Build an assistant message with text, tool calls, or both.

    Raises
    ------
    ValidationError
        If there is neither content nor a tool call, ``content`` is not a
        string or a tuple of parts, two calls share an id, or ``id`` is not a
        string.
    """
    return AssistantMessage(
        content,
        tuple(tool_calls),
        tuple(invalid_tool_calls),
        id=id,
        metadata=metadata,
    )


def tool_result(
    tool_call_id: str,
    result: str,
    *,
    is_error: bool = False,
    name: str | None = None,
    id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> ToolMessage:
    """Build the tool message answering ``tool_call_id``.

    ``name`` is the name of the tool that ran; give it when the history may
    be sent without the call (Gemini needs a name on every result).

    Raises
    ------
    ValidationError
        If ``tool_call_id`` is empty or not a string, ``result`` is not a
        string (it may be empty: a tool may return nothing), ``is_error`` is
        not a bool, ``name`` is empty or not a string, or ``id`` is not a
        string.
    """
    return ToolMessage(tool_call_id, result, is_error=is_error, name=name, id=id, metadata=metadata)
