"""Conversation: an ordered, thread-safe history of messages and records.

Strategy: the records live in a list that only ever grows by appending; a
change that is not an append (replace, remove, clear) builds a new list and
swaps it in. A prefix of such a list never changes, so the pair (list, length)
is an immutable view of the history at one moment. Writers take a lock and
publish a new view, one tuple, in a single assignment; readers take the
current view without a lock. Length, indexing, ``last`` and iteration are
O(1) after any number of writes; the tuples of :attr:`Conversation.records`
and :attr:`Conversation.messages` are built from a view when first asked for
and shared until the next change.

Besides messages, a history holds control records (and records of kinds a
newer version wrote): the ordering rules pass over them, and
:attr:`Conversation.messages` leaves them out; :attr:`Conversation.records`
has everything, in order.
"""

from __future__ import annotations

import copy
import itertools
import operator
import threading
from collections.abc import Iterable, Iterator
from typing import Any, get_args, overload

from ._content import TextPart
from ._control import ControlRecord, UnknownRecord
from ._errors import NotFoundError, ValidationError
from ._fields import check_choice, check_extras, check_items, check_type, is_choice
from ._frozen import freeze_fields
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
from ._tools import Approval
from ._validate import OrderState, Policy

__all__ = ["CURRENT_VERSION", "Conversation", "Entry", "Transcript"]

Entry = Message | ControlRecord
"""What a history holds: a message, or a control record (tagged ``role``
too). A record of a kind this version does not know decodes to an
:class:`UnknownRecord` in its place."""

_NOT_MESSAGES = (ControlRecord, UnknownRecord)
_MESSAGE_CLASSES = frozenset(
    (SystemMessage, DeveloperMessage, UserMessage, AssistantMessage, ToolMessage)
)

_RECORD_TYPES = frozenset({*_MESSAGE_CLASSES, ControlRecord, UnknownRecord})
_POLICIES = frozenset(get_args(Policy))

_View = tuple[list[Entry | UnknownRecord], int, list[Message], int]
"""The history at one moment: the records list and its length, the messages
list and its length. The lists only grow while a view holds them."""


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
        if type(self.records) is not tuple:
            check_type(self.records, tuple, "$.records", "must be a tuple of records")
        check_items(self.records, _RECORD_TYPES, "$.records", "must be a message or a record")
        if not is_choice(self.policy, _POLICIES):
            check_choice(self.policy, _POLICIES, "$.policy", required=True)
        if self.metadata is not None:
            freeze_fields(self, "metadata")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)

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
    policy : {"strict", "provider", "lenient"}, default "strict"
        ``"strict"``, the specification's conversation rules: the first
        message is the only system message, user and assistant alternate,
        tool messages answer the calls of the assistant message just before
        them, each once, before anything else comes. No provider asks that
        much: ``"provider"`` is what the providers refuse (no system message
        needed, roles may repeat, tool messages as in strict, and no assistant
        message first). ``"lenient"``: any order, but a tool message must
        answer a call some assistant message made.
    metadata : dict, optional
        The application's own data about the conversation (JSON values).
    extras : dict, optional
        Fields of a stored conversation the schema does not know, kept and
        written back.

    Examples
    --------
    >>> from chatcodec import system, user, assistant
    >>> conv = Conversation([system("Be brief."), user("Hi", id="m1")])
    >>> conv.add(assistant("Hello."))
    >>> len(conv), str(conv.last)
    (3, 'assistant: 6 chars')
    >>> conv.replace("m1", user("Hi there", id="m1"))
    >>> str(conv.get("m1"))
    'user: 8 chars'
    """

    __slots__ = (
        "_ids",
        "_lock",
        "_messages_cache",
        "_records_cache",
        "_state",
        "_view",
        "extras",
        "metadata",
    )

    def __init__(
        self,
        messages: Iterable[BaseMessage | ControlRecord | UnknownRecord] = (),
        *,
        policy: Policy = "strict",
        metadata: dict[str, Any] | None = None,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._state = OrderState(policy)
        self._records_cache: tuple[_View, tuple[Entry | UnknownRecord, ...]] | None = None
        self._messages_cache: tuple[_View, tuple[Message, ...]] | None = None
        self._view: _View
        self._ids: dict[str, int]
        self._publish([])
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
            items, n, messages, k = self._view
            items.append(message)  # type: ignore[arg-type]  # push checked it
            if type(message) in _MESSAGE_CLASSES or not isinstance(message, _NOT_MESSAGES):
                messages.append(message)  # type: ignore[arg-type]
                k += 1
            ident = getattr(message, "id", None)
            if ident is not None and ident not in self._ids:
                self._ids[ident] = n
            self._view = (items, n + 1, messages, k)

    def extend(self, messages: Iterable[BaseMessage | ControlRecord | UnknownRecord]) -> None:
        """Append several messages: all of them, or none if one breaks a rule.

        Raises
        ------
        OrderingError
            If a message breaks the conversation's ordering policy (also a
            ``ValidationError``); the conversation is left as it was.
        """
        batch = list(messages)
        with self._lock:
            state = self._state.copy()
            for message in batch:
                state.push(message)
            self._state = state
            items, n, said, k = self._view
            ids = self._ids
            for message in batch:
                items.append(message)  # type: ignore[arg-type]  # push checked each
                if not isinstance(message, _NOT_MESSAGES):
                    said.append(message)  # type: ignore[arg-type]
                    k += 1
                ident = getattr(message, "id", None)
                if ident is not None and ident not in ids:
                    ids[ident] = n
                n += 1
            self._view = (items, n, said, k)

    def replace(self, id: str, record: BaseMessage | ControlRecord) -> None:
        """Put ``record`` in the place of the record whose id is ``id``.

        The whole history is checked again under its policy, in O(n).

        Raises
        ------
        NotFoundError
            If no record has that id.
        OrderingError
            If the history would break a rule; it is then unchanged.
        """
        with self._lock:
            items = self._current()
            items[self._position(id)] = record  # type: ignore[assignment]  # checked below
            self._recheck(items)

    def remove(self, id: str) -> Entry | UnknownRecord:
        """Take out the record whose id is ``id``, and return it.

        The rest is checked again under the policy, in O(n): removing an
        assistant message whose calls were answered breaks the rules, for
        one.

        Raises
        ------
        NotFoundError
            If no record has that id.
        OrderingError
            If the history would break a rule; it is then unchanged.
        """
        with self._lock:
            items = self._current()
            record = items.pop(self._position(id))
            self._recheck(items)
            return record

    def set_approval(self, call_id: str, approval: Approval | None) -> AssistantMessage:
        """Set the approval of the tool call ``call_id`` in the history.

        The assistant message that made the call (the last one, if several
        did) is replaced by :meth:`AssistantMessage.with_approval`'s copy,
        which is returned. Approvals do not change the order, so nothing
        else is checked again.

        Raises
        ------
        NotFoundError
            If no assistant message in the history made that call.
        ValidationError
            If ``approval`` is not ``"pending"``, ``"approved"``,
            ``"denied"`` or ``None``.
        """
        with self._lock:
            items = self._current()
            for position in range(len(items) - 1, -1, -1):
                item = items[position]
                if isinstance(item, AssistantMessage) and any(
                    call.id == call_id for call in item.tool_calls
                ):
                    updated = item.with_approval(call_id, approval)
                    items[position] = updated
                    self._publish(items)
                    return updated
        raise NotFoundError(call_id, "tool call")

    def clear(self) -> None:
        """Remove every message and record."""
        with self._lock:
            self._state = OrderState(self._state.policy)
            self._publish([])

    def _current(self) -> list[Entry | UnknownRecord]:
        """A new list of the records (the caller holds the lock)."""
        items, n, _, _ = self._view
        return items[:n]

    def _position(self, id: str) -> int:
        position = self._ids.get(id)
        if position is None:
            raise NotFoundError(id)
        return position

    def _recheck(self, items: list[Entry | UnknownRecord]) -> None:
        """Check ``items`` from the start and, if they pass, make them the history."""
        state = OrderState(self._state.policy)
        for item in items:
            state.push(item)
        self._state = state
        self._publish(items)

    def _publish(self, items: list[Entry | UnknownRecord]) -> None:
        """Make ``items`` (a list no view shares) the history, in O(n)."""
        ids: dict[str, int] = {}
        for position, item in enumerate(items):
            ident = getattr(item, "id", None)
            if ident is not None and ident not in ids:
                ids[ident] = position
        said: list[Message] = [i for i in items if not isinstance(i, _NOT_MESSAGES)]
        self._ids = ids
        self._view = (items, len(items), said, len(said))

    # -- reading --------------------------------------------------------------

    @property
    def records(self) -> tuple[Entry | UnknownRecord, ...]:
        """An immutable snapshot of everything: messages and control records."""
        view = self._view
        cached = self._records_cache
        if cached is not None and cached[0] is view:
            return cached[1]
        items, n, _, _ = view
        snapshot = tuple(items[:n])
        self._records_cache = (view, snapshot)
        return snapshot

    @property
    def messages(self) -> tuple[Message, ...]:
        """An immutable snapshot of the messages (control records left out)."""
        view = self._view
        cached = self._messages_cache
        if cached is not None and cached[0] is view:
            return cached[1]
        _, _, said, k = view
        snapshot = tuple(said[:k])
        self._messages_cache = (view, snapshot)
        return snapshot

    @property
    def last(self) -> Message | None:
        """The last message, or ``None`` when there is none."""
        _, _, said, k = self._view
        return said[k - 1] if k else None

    def get(self, id: str) -> Entry | None:
        """The first record whose id is ``id`` (``None`` if none has it), in O(1).

        Examples
        --------
        >>> from chatcodec import user
        >>> conv = Conversation([user("Hi", id="m1")], policy="provider")
        >>> conv.get("m1") is conv[0], conv.get("m2")
        (True, None)
        """
        with self._lock:
            position = self._ids.get(id)
            return None if position is None else self._view[0][position]  # type: ignore[return-value]

    def __len__(self) -> int:
        # For a length and an index that agree while other threads change the
        # history, read one snapshot: ``msgs = conv.messages``.
        return self._view[3]

    def __iter__(self) -> Iterator[Message]:
        _, _, said, k = self._view
        return itertools.islice(said, k)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        _, _, said, k = self._view
        if isinstance(index, slice):
            return tuple(said[:k][index])
        i = operator.index(index)
        if i < 0:
            i += k
        if not 0 <= i < k:
            raise IndexError("conversation index out of range")
        return said[i]

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
        """The messages of one role, in order.

        Raises
        ------
        ValidationError
            If ``role`` is not a role (a name in any case, or a :class:`Role`).
        """
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
        conversation._state = state
        conversation._publish(messages)
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
