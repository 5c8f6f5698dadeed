"""Rules that span messages: ordering policies and the trust boundary.

Ordering is a small state machine, :class:`OrderState`: each message is checked
against the state in O(1) plus the number of its tool calls, and only applied
once it passes, so a history is never left half-changed.

``strict``, the default, is the conversation rules of chatcodec's
specification. It asks more than any provider does (no provider requires a
system message):

1. the first message is a system (or developer) message, and no other is;
2. user and assistant messages alternate; tool messages come in between;
3. an assistant message with tool calls is followed by tool messages that
   answer its calls, each id once, all of them before the next user or
   assistant message.

``provider`` is what the four provider families refuse (their preflight
checks, ``providers/*/_check.py``): a history valid under it is accepted by
each of them, as far as order goes.

1. system and developer messages may come anywhere, or not at all;
2. the first message after the instructions is not an assistant message
   (Gemini's first turn must be a user turn);
3. roles may repeat (providers join consecutive turns);
4. rule 3 of ``strict``: tool messages answer the calls of the assistant
   message just before them, each id once, all of them before any other
   message; consecutive assistant messages count as one (every encoder
   joins them into one turn), so their calls are answered after the last.

``lenient`` (real transcripts): no system message needed, any role may repeat,
but a tool message must still answer a call some assistant message made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, cast

import msgspec

from ._content import AudioPart, FilePart, ImagePart, TextPart
from ._control import ControlRecord, UnknownRecord
from ._errors import (
    DECODE_FAILURES,
    OrderingError,
    UntrustedInputError,
    ValidationError,
    from_msgspec,
)
from ._frozen import FrozenMap
from ._messages import (
    AssistantMessage,
    BaseMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ._problems import Problem
from ._roles import Role

__all__ = ["POLICIES", "OrderState", "Policy", "validate", "validate_untrusted"]

Policy = Literal["strict", "provider", "lenient"]
POLICIES: tuple[Policy, ...] = ("strict", "provider", "lenient")
"""The ordering policies, from the most to the least demanding."""

NO_SYSTEM = (
    "the first message must be a system message"
    " (the 'provider' and 'lenient' policies allow a history without one)"
)
_MESSAGES = (SystemMessage, DeveloperMessage, UserMessage, AssistantMessage, ToolMessage)
_SYSTEMS = (SystemMessage, DeveloperMessage)


_SYSTEM, _DEVELOPER, _USER, _ASSISTANT, _TOOL = Role
_ROLE_OF: Mapping[type, Role] = FrozenMap({cls: cls.role for cls in _MESSAGES})
# The empty id set every state starts from, shared by them all: a frozenset, so
# that no state can change it. A state changes only sets of its own (made when
# an assistant message makes calls), never this one.
_NO_IDS: frozenset[str] = frozenset()
IdSet = set[str] | frozenset[str]


def role_of(message: object) -> Role | None:
    """The role of a message, by exact type first (isinstance is slow on Structs)."""
    role = _ROLE_OF.get(type(message))
    if role is None and isinstance(message, _MESSAGES):
        role = message.role
    return role


_PASSED_OVER = (ControlRecord, UnknownRecord)


class OrderState:
    """Where a sequence of messages stands, and what may come next."""

    __slots__ = (
        "answerable",
        "answered",
        "count",
        "known",
        "last",
        "pending",
        "policy",
        "started",
        "strict",
    )

    def __init__(self, policy: Policy = "strict") -> None:
        if policy not in POLICIES:
            raise ValidationError("policy must be 'strict', 'provider' or 'lenient'", "$.policy")
        self.policy: Policy = policy
        self.strict = policy == "strict"
        self.count = 0  # messages seen, applied or passed over: the next index
        self.last: Role | None = None  # the role of the last message applied
        # provider: whether a user, assistant or tool message was applied.
        self.started = False
        # strict and provider: calls of the nearest assistant message still to
        # be answered, every id of it that may be answered, and those answered.
        self.pending: IdSet = _NO_IDS
        self.answerable: IdSet = _NO_IDS
        self.answered: IdSet = _NO_IDS
        # lenient: every call id any assistant message made.
        self.known: set[str] = set()

    def copy(self) -> OrderState:
        """An independent copy, to try several messages without committing."""
        other = OrderState(self.policy)
        other.count, other.last, other.started = self.count, self.last, self.started
        other.pending, other.answerable = set(self.pending), set(self.answerable)
        other.answered, other.known = set(self.answered), set(self.known)
        return other

    def push(self, message: BaseMessage | ControlRecord | UnknownRecord) -> None:
        """Check ``message`` as the next one and, if it may come next, apply it.

        Raises
        ------
        OrderingError
            Naming the index and the rule; the state is then unchanged.
        """
        role = _ROLE_OF.get(type(message)) or role_of(message)
        if role is None:
            if isinstance(message, _PASSED_OVER):  # history, not conversation
                self.count += 1
                return
            raise OrderingError("must be a message", self.count)
        message = cast(BaseMessage, message)
        if self.strict:
            self._check_strict(message, role)
        elif self.policy == "provider":
            self._check_provider(message, role)
        elif role is _TOOL and cast(ToolMessage, message).tool_call_id not in self.known:
            raise OrderingError("tool message must answer a tool call made earlier", self.count)
        self._apply(message, role)

    def recover(self, message: BaseMessage | ControlRecord | UnknownRecord) -> None:
        """Go on after ``message`` broke a rule, so that one fault is reported once.

        The history is taken as repaired where the fault is: a missing system
        message as there, a missing first user message as there, calls left
        unanswered as answered. ``message`` is then applied if it passes, and
        passed over if it still breaks a rule of its own.
        """
        role = role_of(message)
        if role is None:  # not a message: nothing to repair
            self.count += 1
            return
        if self.strict and self.last is None:
            self.last = _SYSTEM
        self.started = True
        if role is not _TOOL:
            self.pending = _NO_IDS
        try:
            self.push(message)
        except OrderingError:
            self.count += 1  # keep indexes aligned with the input

    def _check_strict(self, message: BaseMessage, role: Role) -> None:
        index, last = self.count, self.last
        if role is _SYSTEM or role is _DEVELOPER:
            if last is not None:
                raise OrderingError("a system message may only come first", index)
            return
        if last is None:
            raise OrderingError(NO_SYSTEM, index)
        if role is _TOOL:
            self._check_tool(message, index)
            return
        if self.pending:
            raise OrderingError("every tool call must be answered before this message", index)
        if role is _USER and last is _USER:
            raise OrderingError("a user message must follow an assistant or tool message", index)
        if role is _ASSISTANT and last is not _USER and last is not _TOOL:
            raise OrderingError("an assistant message must follow a user or tool message", index)

    def _check_provider(self, message: BaseMessage, role: Role) -> None:
        index = self.count
        if role is _TOOL:
            self._check_tool(message, index)
            return
        if self.pending and not (role is _ASSISTANT and self.last is _ASSISTANT):
            raise OrderingError("every tool call must be answered before this message", index)
        if role is _ASSISTANT and not self.started:
            raise OrderingError(
                "the first message after the instructions must not be an assistant message",
                index,
            )

    def _check_tool(self, message: BaseMessage, index: int) -> None:
        last = self.last
        call_id = cast(ToolMessage, message).tool_call_id
        if call_id in self.answered:
            raise OrderingError("tool call is answered already", index)
        if call_id not in self.answerable or (last is not _ASSISTANT and last is not _TOOL):
            raise OrderingError(
                "tool message must answer a call of the preceding assistant message", index
            )

    def _apply(self, message: BaseMessage, role: Role) -> None:
        self.count += 1
        previous, self.last = self.last, role
        if role is _ASSISTANT:
            said = cast(AssistantMessage, message)
            calls, invalid = said.tool_calls, said.invalid_tool_calls
            # provider: consecutive assistant messages are one turn (every
            # encoder joins them), whose calls are answered after the last.
            joined = previous is _ASSISTANT and self.policy == "provider"
            if calls or invalid:
                ids = {call.id for call in calls}
                answerable = ids | {c.id for c in invalid if c.id}
                if joined:
                    # New sets of this state's own: the turn so far may hold the shared one.
                    self.pending = {*self.pending, *ids}
                    self.answerable = {*self.answerable, *answerable}
                    if type(self.answered) is not set:
                        self.answered = set()
                else:
                    self.pending, self.answerable, self.answered = ids, answerable, set()
                self.known.update(answerable)
            elif not joined:
                self.pending = self.answerable = self.answered = _NO_IDS
        elif role is _TOOL:
            call_id = cast(ToolMessage, message).tool_call_id
            if call_id in self.answerable:
                # Sets of this state's own, made with the calls (see above); after
                # recover() the pending ones may be the shared empty set.
                pending, answered = self.pending, self.answered
                if type(pending) is set:
                    pending.discard(call_id)
                if type(answered) is set:
                    answered.add(call_id)
                else:
                    self.answered = {call_id}
        if role is not _SYSTEM and role is not _DEVELOPER:
            self.started = True


def validate(
    messages: Iterable[BaseMessage], *, policy: Policy = "strict", collect: bool = False
) -> list[Problem]:
    """Check the order of a whole sequence of messages.

    Parameters
    ----------
    messages : iterable of Message
        The sequence to check.
    policy : {"strict", "provider", "lenient"}, default "strict"
        Which rules apply. ``"strict"`` is the specification's conversation
        rules: one system message, first; user and assistant alternate; tool
        messages answer the calls just before them. ``"provider"`` is what
        the provider APIs refuse (no system message needed, roles may
        repeat; tool messages as in strict). ``"lenient"`` takes any order
        in which each tool message answers a call made earlier.
    collect : bool, default False
        Report every problem instead of raising on the first. A message that
        breaks a rule is then passed over and the check goes on after it; a
        history without a system message is reported once, at its first
        message.

    Returns
    -------
    list of Problem
        Empty when the sequence is valid (always, when ``collect`` is false).

    Raises
    ------
    OrderingError
        On the first problem, unless ``collect``.

    Examples
    --------
    >>> from chatcodec import assistant, user
    >>> history = [user("Hi"), assistant("Hello."), user("Bye")]
    >>> [str(p) for p in validate(history, collect=True)]  # doctest: +NORMALIZE_WHITESPACE
    ["error: the first message must be a system message (the 'provider' and
     'lenient' policies allow a history without one) - at `$[0]`"]
    >>> validate(history, policy="provider")
    []
    """
    state = OrderState(policy)
    problems: list[Problem] = []
    for index, message in enumerate(messages):
        try:
            state.push(message)
        except OrderingError as error:
            if not collect:
                raise
            problems.append(Problem(f"$[{index}]", error.rule))
            state.recover(message)
    return problems


# What an end user may send: no provider's opaque blocks.
_UserPart = TextPart | ImagePart | AudioPart | FilePart


class _UntrustedMessage(msgspec.Struct, forbid_unknown_fields=True):
    role: str
    content: str | tuple[_UserPart, ...]


_UNTRUSTED = msgspec.json.Decoder(list[_UntrustedMessage])


def validate_untrusted(
    messages: bytes | str | Sequence[Mapping[str, Any] | BaseMessage], *, allow_system: bool = False
) -> tuple[UserMessage | SystemMessage, ...]:
    """Let through only what an end user may say: the trust boundary.

    Accepts JSON (a list of messages), mappings or messages. Each item may have
    only ``role`` and ``content``; the role must be exactly ``"user"`` (or
    ``"system"`` with ``allow_system``); content must not be empty. Assistant
    and tool messages, tool fields, ``extras``, ``metadata`` and ids are
    refused, so nothing can be spoofed into a history.

    ``"system"`` is refused unless ``allow_system`` says otherwise, although
    the specification's ``UserInputRole`` includes it: a system message
    outranks the user's, so one an end user can send is a prompt injection
    waiting to happen. The application that really lets its users write
    instructions opts in.

    Returns
    -------
    tuple of UserMessage or SystemMessage

    Raises
    ------
    UntrustedInputError
        Naming the path and the rule of the first refusal.
    """
    allowed = ("user", "system") if allow_system else ("user",)
    try:
        if isinstance(messages, bytes | str | bytearray | memoryview):
            items = _UNTRUSTED.decode(messages)
        elif isinstance(messages, Sequence):
            items = [_untrusted_item(item, i, allowed) for i, item in enumerate(messages)]
        else:
            raise UntrustedInputError("must be a list of messages", "$")
    except DECODE_FAILURES as exc:
        raise _refusal(from_msgspec(exc)) from None
    if not items:
        raise UntrustedInputError("must hold at least one message", "$")
    out: list[UserMessage | SystemMessage] = []
    for index, item in enumerate(items):
        if item.role not in allowed:
            raise UntrustedInputError(f"role must be {' or '.join(allowed)}", f"$[{index}].role")
        if not isinstance(item.content, str):
            for n, part in enumerate(item.content):
                if part.extras is not None:
                    path = f"$[{index}].content[{n}].extras"
                    raise UntrustedInputError("not allowed in untrusted input", path)
        try:
            out.append(UserMessage(item.content) if item.role == "user" else _system(item.content))
        except ValidationError as error:
            raise UntrustedInputError(error.rule, f"$[{index}]{error.path[1:]}") from None
    return tuple(out)


def _untrusted_item(item: object, index: int, allowed: tuple[str, ...]) -> _UntrustedMessage:
    if isinstance(item, BaseMessage):
        # A built message gets no credit: it goes through the same checks as
        # JSON, content and all.
        if item.role.value not in allowed:
            raise UntrustedInputError(f"role must be {' or '.join(allowed)}", f"$[{index}].role")
        try:
            item = msgspec.to_builtins(item)
        except (TypeError, ValueError):
            raise UntrustedInputError(
                "must hold only content parts", f"$[{index}].content"
            ) from None
    try:
        return msgspec.convert(item, _UntrustedMessage)
    except (msgspec.ValidationError, RecursionError) as exc:
        raise _refusal(from_msgspec(exc, f"$[{index}]")) from None


def _system(content: str | tuple[_UserPart, ...]) -> SystemMessage:
    if not isinstance(content, str):
        raise ValidationError("must be text", "$.content")
    return SystemMessage(content)


def _refusal(error: Exception) -> UntrustedInputError:
    if isinstance(error, ValidationError):
        rule = error.rule
        if rule == "Object contains unknown field":
            rule = "field not allowed in untrusted input"
        return UntrustedInputError(rule, error.path)
    return UntrustedInputError(str(error).rpartition(" - at ")[0] or str(error), "$")
