"""Conversation: an ordered, thread-safe history of messages and records.

Writers take a lock; readers get an immutable snapshot (a tuple), built once
per change and shared until the next one, so reading never blocks on a
half-made change and never copies twice.

Besides messages, a history holds control records (and records of kinds a
newer version wrote): the ordering rules pass over them, and
:attr:`Conversation.messages` leaves them out; :attr:`Conversation.records`
has everything, in order.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Iterator
from typing import Any, overload

from ._content import TextPart
from ._control import ControlRecord, UnknownRecord
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
from ._migrate import CURRENT_VERSION
from ._record import Record
from ._roles import Role
from ._validate import OrderState, Policy

__all__ = ["CURRENT_VERSION", "Conversation", "Entry", "Transcript"]

Entry = Message | ControlRecord
"""What a history holds: a message, or a control record (tagged ``role``
too). A record of a kind this version does not know decodes to an
:class:`UnknownRecord` in its place."""

_NOT_MESSAGES = (ControlRecord, UnknownRecord)


class Transcript(Record, frozen=True):
    """A conversation as it is stored: schema version, policy, records, metadata.

    ``records`` holds the messages and the control records, in order.
    Decoding a transcript of an older version migrates it (see
    :func:`chatcodec.read_transcript`).
    """

    v: int
    records: tuple[Entry, ...] = ()
    policy: Policy = "strict"
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.v != CURRENT_VERSION:
            raise ValidationError(
                f"unsupported version; this chatcodec reads 1 to {CURRENT_VERSION}", "$.v"
            )

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages among the records, in order."""
        return tuple(r for r in self.records if not isinstance(r, _NOT_MESSAGES))


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

    __slots__ = ("_items", "_lock", "_messages", "_snapshot", "_state", "extras", "metadata")

    def __init__(
        self,
        messages: Iterable[BaseMessage | ControlRecord | UnknownRecord] = (),
        *,
        policy: Policy = "strict",
        metadata: dict[str, Any] | None = None,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._items: list[Entry | UnknownRecord] = []
        self._snapshot: tuple[Entry | UnknownRecord, ...] | None = ()
        self._messages: tuple[Message, ...] | None = ()
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

    def add(self, message: BaseMessage | ControlRecord | UnknownRecord) -> None:
        """Append one message (or control record), in O(1) amortized.

        Raises
        ------
        OrderingError
            If the message may not come next; the history is unchanged.
        """
        with self._lock:
            self._state.push(message)
            # Invalidate before changing: a reader that sees the new length
            # then finds no stale snapshot and waits for the lock.
            self._snapshot = self._messages = None
            self._items.append(message)  # type: ignore[arg-type]  # push checked it

    def extend(self, messages: Iterable[BaseMessage | ControlRecord | UnknownRecord]) -> None:
        """Append several messages: all of them, or none if one breaks a rule."""
        batch = list(messages)
        with self._lock:
            state = self._state.copy()
            for message in batch:
                state.push(message)
            self._state = state
            self._snapshot = self._messages = None
            self._items.extend(batch)  # type: ignore[arg-type]  # push checked each

    def clear(self) -> None:
        """Remove every message and record."""
        with self._lock:
            self._state = OrderState(self._state.policy)
            self._snapshot = self._messages = None
            self._items.clear()
            self._snapshot = self._messages = ()

    # -- reading --------------------------------------------------------------

    @property
    def records(self) -> tuple[Entry | UnknownRecord, ...]:
        """An immutable snapshot of everything: messages and control records."""
        snapshot = self._snapshot
        if snapshot is None:
            with self._lock:
                snapshot = self._snapshot
                if snapshot is None:
                    snapshot = self._snapshot = tuple(self._items)
        return snapshot

    @property
    def messages(self) -> tuple[Message, ...]:
        """An immutable snapshot of the messages (control records left out)."""
        messages = self._messages
        if messages is None:
            with self._lock:
                messages = self._messages
                if messages is None:
                    items = self._items
                    if any(isinstance(item, _NOT_MESSAGES) for item in items):
                        items = [i for i in items if not isinstance(i, _NOT_MESSAGES)]
                    messages = self._messages = tuple(items)  # type: ignore[arg-type]
        return messages

    @property
    def last(self) -> Message | None:
        """The last message, or ``None`` when there is none."""
        with self._lock:
            for item in reversed(self._items):
                if not isinstance(item, _NOT_MESSAGES):
                    return item
            return None

    def __len__(self) -> int:
        # For a length and an index that agree while other threads add, read
        # one snapshot: ``msgs = conv.messages``.
        return len(self.messages)

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
            and self.records == other.records
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
        """A new conversation: these records, then ``other``'s, under this policy."""
        tail = other.records if isinstance(other, Conversation) else other
        return Conversation(
            (*self.records, *tail),
            policy=self.policy,
            metadata=copy.deepcopy(self.metadata),
            extras=copy.deepcopy(self.extras),
        )

    __add__ = concat

    def copy(self) -> Conversation:
        """An independent conversation with the same records and policy."""
        return Conversation(
            self.records,
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
        """The stored form: version, policy, records and metadata."""
        return Transcript(
            CURRENT_VERSION,
            self.records,  # type: ignore[arg-type]  # unknown records are written verbatim
            self.policy,
            self.metadata,
            extras=self.extras,
        )

    @classmethod
    def _checked(
        cls, messages: list[Entry | UnknownRecord], state: OrderState, head: Transcript
    ) -> Conversation:
        """A conversation from messages that ``state`` has already checked, in order."""
        conversation = cls(policy=state.policy, metadata=head.metadata, extras=head.extras)
        state.count = len(messages)  # indexes of what it holds, not of the input
        conversation._items = messages
        conversation._state = state
        conversation._snapshot = conversation._messages = None
        return conversation

    @classmethod
    def from_transcript(cls, transcript: Transcript) -> Conversation:
        """Rebuild a conversation from its stored form, checking its order."""
        return cls(
            transcript.records,
            policy=transcript.policy,
            metadata=transcript.metadata,
            extras=transcript.extras,
        )


def _text_size(message: Message) -> int:
    if isinstance(message, AssistantMessage):
        size = len(message.text)
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
