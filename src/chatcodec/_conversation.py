"""Conversation: an ordered, thread-safe history of messages.

Writers take a lock; readers get an immutable snapshot (a tuple), built once
per change and shared until the next one, so reading never blocks on a
half-made change and never copies twice.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Iterator
from typing import Any, overload

from ._content import TextPart
from ._errors import ValidationError
from ._messages import (
    AssistantMessage,
    BaseMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ._record import Record
from ._roles import Role
from ._validate import OrderState, Policy

__all__ = ["Conversation", "Transcript"]

CURRENT_VERSION = 1


class Transcript(Record, frozen=True):
    """A conversation as it is stored: schema version, policy, messages, metadata."""

    v: int
    messages: tuple[Message, ...] = ()
    policy: Policy = "strict"
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.v != CURRENT_VERSION:
            raise ValidationError(
                f"unsupported version; this chatcodec reads {CURRENT_VERSION}", "$.v"
            )


class Conversation:
    """An ordered history of messages that keeps itself valid.

    Parameters
    ----------
    messages : iterable of Message, optional
        Initial messages, checked like :meth:`extend`.
    policy : {"strict", "lenient"}, default "strict"
        ``"strict"``: the first message is the only system message, user and
        assistant alternate, tool messages answer the calls of the assistant
        message just before them, each once, before anything else comes.
        ``"lenient"``: any order, but a tool message must answer a call some
        assistant message made.
    metadata : dict, optional
        The application's own data about the conversation (JSON values).
    extras : dict, optional
        Fields of a stored conversation the schema does not know, kept and
        written back.

    Examples
    --------
    >>> from chatcodec import system, user, assistant
    >>> conv = Conversation([system("Be brief."), user("Hi")])
    >>> conv.add(assistant("Hello."))
    >>> len(conv), str(conv.last)
    (3, 'assistant: 6 chars')
    """

    __slots__ = ("_items", "_lock", "_snapshot", "_state", "extras", "metadata")

    def __init__(
        self,
        messages: Iterable[BaseMessage] = (),
        *,
        policy: Policy = "strict",
        metadata: dict[str, Any] | None = None,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._items: list[Message] = []
        self._snapshot: tuple[Message, ...] | None = ()
        self._state = OrderState(policy)
        self.metadata = metadata
        self.extras = extras
        if messages:
            self.extend(messages)

    @property
    def policy(self) -> Policy:
        """The ordering policy chosen at construction."""
        return self._state.policy

    # -- changing -------------------------------------------------------------

    def add(self, message: BaseMessage) -> None:
        """Append one message, in O(1) amortized.

        Raises
        ------
        OrderingError
            If the message may not come next; the history is unchanged.
        """
        with self._lock:
            self._state.push(message)
            # Invalidate before changing: a reader that sees the new length
            # then finds no stale snapshot and waits for the lock.
            self._snapshot = None
            self._items.append(message)  # type: ignore[arg-type]  # push checked it

    def extend(self, messages: Iterable[BaseMessage]) -> None:
        """Append several messages: all of them, or none if one breaks a rule."""
        batch = list(messages)
        with self._lock:
            state = self._state.copy()
            for message in batch:
                state.push(message)
            self._state = state
            self._snapshot = None
            self._items.extend(batch)  # type: ignore[arg-type]  # push checked each

    def clear(self) -> None:
        """Remove every message."""
        with self._lock:
            self._state = OrderState(self._state.policy)
            self._snapshot = None
            self._items.clear()
            self._snapshot = ()

    # -- reading --------------------------------------------------------------

    @property
    def messages(self) -> tuple[Message, ...]:
        """An immutable snapshot of the messages."""
        snapshot = self._snapshot
        if snapshot is None:
            with self._lock:
                snapshot = self._snapshot
                if snapshot is None:
                    snapshot = self._snapshot = tuple(self._items)
        return snapshot

    @property
    def last(self) -> Message | None:
        """The last message, or ``None`` when empty."""
        with self._lock:
            return self._items[-1] if self._items else None

    def __len__(self) -> int:
        # For a length and an index that agree while other threads add, read
        # one snapshot: ``msgs = conv.messages``.
        return len(self._items)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        return self.messages[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Conversation):
            return NotImplemented
        return (
            self.policy == other.policy
            and self.messages == other.messages
            and self.metadata == other.metadata
            and self.extras == other.extras
        )

    __hash__ = None  # type: ignore[assignment]  # it changes

    def __repr__(self) -> str:
        return f"Conversation({len(self)} messages, policy={self.policy!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Conversation.from_transcript, (self.to_transcript(),))

    # -- filters --------------------------------------------------------------

    def by_role(self, role: Role | str) -> tuple[Message, ...]:
        """The messages of one role, in order."""
        wanted = Role.parse(role) if not isinstance(role, Role) else role
        return tuple(m for m in self.messages if m.role is wanted)

    def system_messages(self) -> tuple[SystemMessage, ...]:
        """The system messages."""
        return tuple(m for m in self.messages if isinstance(m, SystemMessage))

    def developer_messages(self) -> tuple[DeveloperMessage, ...]:
        """The developer messages."""
        return tuple(m for m in self.messages if isinstance(m, DeveloperMessage))

    def user_messages(self) -> tuple[UserMessage, ...]:
        """The user messages."""
        return tuple(m for m in self.messages if isinstance(m, UserMessage))

    def assistant_messages(self) -> tuple[AssistantMessage, ...]:
        """The assistant messages."""
        return tuple(m for m in self.messages if isinstance(m, AssistantMessage))

    def tool_messages(self) -> tuple[ToolMessage, ...]:
        """The tool messages."""
        return tuple(m for m in self.messages if isinstance(m, ToolMessage))

    # -- whole history --------------------------------------------------------

    def concat(self, other: Conversation | Iterable[BaseMessage]) -> Conversation:
        """A new conversation: these messages, then ``other``'s, under this policy."""
        return Conversation(
            (*self.messages, *other),
            policy=self.policy,
            metadata=copy.deepcopy(self.metadata),
            extras=copy.deepcopy(self.extras),
        )

    __add__ = concat

    def copy(self) -> Conversation:
        """An independent conversation with the same messages and policy."""
        return Conversation(
            self.messages,
            policy=self.policy,
            metadata=copy.deepcopy(self.metadata),
            extras=copy.deepcopy(self.extras),
        )

    def estimate_tokens(self) -> int:
        """Estimate the prompt size in tokens: characters / 4, rounded up.

        Counts text content, text parts, tool names, tool-call arguments and
        tool results; images, audio and files are not counted.
        """
        chars = 0
        for message in self.messages:
            chars += _text_size(message)
        return (chars + 3) // 4

    def pretty(self) -> str:
        """The history as role-labelled text, for debugging.

        This is the one place chatcodec shows content; do not log it where
        content must stay private.
        """
        return "\n".join(_pretty(i, m) for i, m in enumerate(self.messages))

    def to_transcript(self) -> Transcript:
        """The stored form: version, policy, messages and metadata."""
        return Transcript(
            CURRENT_VERSION, self.messages, self.policy, self.metadata, extras=self.extras
        )

    @classmethod
    def _checked(cls, messages: list[Message], state: OrderState, head: Transcript) -> Conversation:
        """A conversation from messages that ``state`` has already checked, in order."""
        conversation = cls(policy=state.policy, metadata=head.metadata, extras=head.extras)
        state.count = len(messages)  # indexes of what it holds, not of the input
        conversation._items = messages
        conversation._state = state
        conversation._snapshot = None
        return conversation

    @classmethod
    def from_transcript(cls, transcript: Transcript) -> Conversation:
        """Rebuild a conversation from its stored form, checking its order."""
        return cls(
            transcript.messages,
            policy=transcript.policy,
            metadata=transcript.metadata,
            extras=transcript.extras,
        )


def _text_size(message: Message) -> int:
    if isinstance(message, AssistantMessage):
        size = len(message.content or "")
        for call in message.tool_calls:
            size += len(call.name) + len(bytes(call.arguments))
        for bad in message.invalid_tool_calls:
            size += len(bad.name or "") + len(bad.arguments)
        return size
    content = message.content
    if isinstance(content, str):
        return len(content)
    return sum(len(part.text) for part in content if isinstance(part, TextPart))


def _pretty(index: int, message: Message) -> str:
    head = f"[{index}] {message.role.value}"
    if isinstance(message, ToolMessage):
        flag = " error" if message.is_error else ""
        return f"{head} ({message.tool_call_id}{flag}): {message.content}"
    if isinstance(message, AssistantMessage):
        lines = [f"{head}: {message.content}"] if message.content is not None else [head + ":"]
        lines += [
            f"    -> {c.name}({bytes(c.arguments).decode()}) [{c.id}]" for c in message.tool_calls
        ]
        lines += [
            f"    -> invalid {c.name}({c.arguments}) [{c.id}]: {c.error}"
            for c in message.invalid_tool_calls
        ]
        return "\n".join(lines)
    content = message.content
    if isinstance(content, str):
        return f"{head}: {content}"
    parts = [p.text if isinstance(p, TextPart) else f"<{p.__struct_config__.tag}>" for p in content]
    return f"{head}: {' '.join(parts)}"
