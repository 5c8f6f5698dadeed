"""Structured output where the target has none: the answer's schema as one tool.

A model that cannot be held to a JSON schema can still be made to call a tool
whose parameters are that schema; the call's arguments are then the answer.
:func:`answer_as_tool` turns a request's ``response_format`` into that tool
(named :data:`ANSWER_TOOL`) and the tool choice that makes the model call it;
:func:`answer_from_tool` turns the call in a response back into the answer's
text, so the caller reads what a native structured answer would have said.
Both are opt-in: ``convert(..., structured_output="tool")`` applies them, on
the request going out and on the response coming back.

The name is fixed so that the response side needs nothing from the request:
a request that already has a tool of that name is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from ._content import TextPart
from ._errors import ValidationError
from ._events import Finished, StreamEvent, TextDelta, ToolCallCompleted
from ._exchange import Choice, Request, Response, ToolChoice
from ._frozen import FrozenMap
from ._loss import Loss
from ._problems import Problem
from ._stream import ToolCallArgumentsDelta, ToolCallStarted
from ._tools import ToolCall, ToolDefinition
from ._usage import FinishReason

__all__ = [
    "ANSWER_TOOL",
    "STRUCTURED_OUTPUT",
    "AnswerEvents",
    "StructuredOutput",
    "answer_as_tool",
    "answer_from_tool",
]

ANSWER_TOOL = "json_answer"
"""The name of the tool that carries a structured answer."""

StructuredOutput = Literal["native", "tool"]
"""How a request's ``response_format`` is sent: as the target's own, or as a forced tool."""

STRUCTURED_OUTPUT = ("native", "tool")

_DESCRIPTION = "Give the final answer. The arguments are the answer, in the schema it must follow."
_ANY_OBJECT: Mapping[str, Any] = FrozenMap({"type": "object"})
_OBJECT_ROOT = "must be an object schema to be the parameters of a tool"
_TAKEN = "is the name of the tool that carries a structured answer: rename the tool"
_FORCED = "forces another tool: the answer's tool cannot be forced as well"
_SENT = "sent as the forced tool 'json_answer': read the answer back with answer_from_tool"
_THINKING = (
    "sent as the tool 'json_answer', not forced (a thinking model may not be forced to "
    "call a tool): the model may answer in text"
)
_REQUIRED = "became 'required': the model answers through the tool 'json_answer'"
_BESIDE = "text beside the answer's tool call: the answer is the call's arguments"
_SENT_BEFORE = "text came before the answer's tool call and was sent ahead of the answer"


def answer_as_tool(request: Request) -> tuple[Request, list[Problem]]:
    """``request`` with its JSON ``response_format`` sent as a tool the model must call.

    The tool, :data:`ANSWER_TOOL`, takes the schema as its parameters (any
    object for ``json_object``); ``response_format`` is removed, and the tool
    choice forces the tool when it is the only one, or becomes ``"required"``
    beside the request's own tools (the model then answers through it). A
    request that turns thinking on keeps an automatic choice, since providers
    refuse a forced tool with thinking. A request without a JSON format is
    returned as it is.

    Parameters
    ----------
    request : Request
        The request to send.

    Returns
    -------
    Request
        The request to encode for the target.
    list of Problem
        Warnings saying what was changed, by path (empty when nothing was).

    Raises
    ------
    ValidationError
        When the schema's root is not an object schema, a tool of the
        request already has the name :data:`ANSWER_TOOL`, or the tool
        choice forces one of the request's tools.

    Examples
    --------
    >>> import chatcodec as cc
    >>> fmt = cc.ResponseFormat("json_schema", "city", {"type": "object",
    ...     "properties": {"name": {"type": "string"}}, "required": ["name"]})
    >>> sent, problems = cc.answer_as_tool(cc.Request((cc.user("Where?"),), response_format=fmt))
    >>> sent.tools[0].name, sent.tool_choice.mode, sent.response_format is None
    ('json_answer', 'tool', True)
    >>> [p.path for p in problems]
    ['$.response_format']
    """
    fmt = request.response_format
    if fmt is None or fmt.type == "text":
        return request, []
    schema: Mapping[str, Any] = fmt.schema if fmt.schema is not None else _ANY_OBJECT
    if schema.get("type") != "object":
        raise ValidationError(_OBJECT_ROOT, "$.response_format.schema")
    for n, tool in enumerate(request.tools):
        if getattr(tool, "name", None) == ANSWER_TOOL:
            raise ValidationError(_TAKEN, f"$.tools[{n}].name")
    choice = request.tool_choice
    mode = choice.mode if choice is not None else "auto"
    if mode == "tool":
        raise ValidationError(_FORCED, "$.tool_choice")
    description = _DESCRIPTION if fmt.name is None else f"{_DESCRIPTION} ({fmt.name})"
    try:
        tool = ToolDefinition(ANSWER_TOOL, description, dict(schema), strict=fmt.strict is True)
    except ValidationError as error:
        raise ValidationError(error.rule, "$.response_format.schema") from None
    problems: list[Problem] = []
    thinking = request.reasoning is not None and not request.reasoning.off
    if thinking:
        new_choice = choice
        problems.append(Problem("$.response_format", _THINKING, "warning"))
    elif request.tools and mode != "none":
        new_choice = ToolChoice("required")
        problems.append(Problem("$.response_format", _SENT, "warning"))
        if mode != "required":
            problems.append(Problem("$.tool_choice", _REQUIRED, "warning"))
    else:
        new_choice = ToolChoice("tool", ANSWER_TOOL)
        problems.append(Problem("$.response_format", _SENT, "warning"))
    sent = msgspec.structs.replace(
        request,
        tools=(*request.tools, tool),
        tool_choice=new_choice,
        response_format=None,
    )
    return sent, problems


def answer_from_tool(response: Response) -> tuple[Response, list[Loss]]:
    """``response`` with a call of :data:`ANSWER_TOOL` turned back into the answer's text.

    In each choice whose message calls the tool, the call's arguments (a
    JSON object) become the message's text content and the call is removed;
    when no other call is left, a ``tool_calls`` finish becomes ``stop``.
    A call cut off (kept as an invalid call) gives its text as sent, and the
    finish reason stays (``length``, as a native answer cut off would say).
    Text the model wrote beside the call is not the answer: it is dropped
    and reported. Reasoning and other parts stay.

    Parameters
    ----------
    response : Response
        The response read from the target.

    Returns
    -------
    Response
        The response to give the caller.
    list of Loss
        The text dropped beside an answer, by path.

    Examples
    --------
    >>> import chatcodec as cc
    >>> call = cc.tool_call("toolu_1", "json_answer", {"name": "Paris"})
    >>> message = cc.AssistantMessage(None, (call,))
    >>> got = cc.Response((cc.Choice(message, cc.FinishReason.TOOL_CALLS),))
    >>> answer, losses = cc.answer_from_tool(got)
    >>> answer.message.text, answer.finish_reason, losses
    ('{"name":"Paris"}', <FinishReason.STOP: 'stop'>, [])
    """
    losses: list[Loss] = []
    choices = tuple(_choice(choice, n, losses) for n, choice in enumerate(response.choices))
    if all(new is old for new, old in zip(choices, response.choices, strict=True)):
        return response, losses
    return msgspec.structs.replace(response, choices=choices), losses


def _choice(choice: Choice, n: int, losses: list[Loss]) -> Choice:
    message = choice.message
    if message is None:
        return choice
    answer: str | None = None
    calls: list[ToolCall] = []
    for call in message.tool_calls:
        if call.name == ANSWER_TOOL and answer is None:
            answer = bytes(call.arguments).decode()
        else:
            calls.append(call)
    invalid = list(message.invalid_tool_calls)
    if answer is None:
        for m, bad in enumerate(invalid):
            if bad.name == ANSWER_TOOL:
                answer = bad.arguments
                del invalid[m]
                break
    if answer is None:
        return choice
    parts: list[Any] = []
    path = f"$.choices[{n}].message.content"
    content = message.content
    if isinstance(content, str):
        if content:
            losses.append(Loss(path, _BESIDE))
    elif content:
        for m, part in enumerate(content):
            if type(part) is TextPart:
                losses.append(Loss(f"{path}[{m}]", _BESIDE))
            else:
                parts.append(part)
    text: Any = (*parts, TextPart(answer)) if parts else answer
    new = msgspec.structs.replace(
        message, content=text, tool_calls=tuple(calls), invalid_tool_calls=tuple(invalid)
    )
    finish, raw = choice.finish_reason, choice.raw_finish_reason
    if finish is FinishReason.TOOL_CALLS and not calls and not invalid:
        finish, raw = FinishReason.STOP, None
    return msgspec.structs.replace(choice, message=new, finish_reason=finish, raw_finish_reason=raw)


class AnswerEvents:
    """A stream's events with the call of :data:`ANSWER_TOOL` turned into answer text, live.

    The call's argument fragments become text deltas as they arrive; the
    other calls keep their order, numbered from 0 without it; a choice that
    called nothing else finishes with ``stop`` instead of ``tool_calls``.
    What :func:`answer_from_tool` does to a whole response, for a stream
    that cannot wait: text that came before the call was already sent, and
    is reported.
    """

    __slots__ = ("_answered", "_answers", "_others", "_texted", "losses")

    def __init__(self, losses: list[Loss] | None = None) -> None:
        self._answers: set[tuple[int, int]] = set()  # (choice, slot) of the answer's call
        self._answered: set[int] = set()  # choices that called the answer's tool
        self._others: dict[tuple[int, int], int] = {}  # another call's slot, renumbered
        self._texted: set[int] = set()  # choices that sent text
        self.losses: list[Loss] = [] if losses is None else losses
        """What the stream could not say as a native answer would (``losses`` if given)."""

    def __call__(self, events: list[StreamEvent]) -> list[StreamEvent]:
        """The events to send in place of ``events``."""
        out: list[StreamEvent] = []
        for event in events:
            new: StreamEvent | None = event
            if isinstance(event, TextDelta):
                self._texted.add(event.choice)
            elif isinstance(event, ToolCallStarted | ToolCallArgumentsDelta):
                new = self._call_event(event)
            elif isinstance(event, ToolCallCompleted):
                new = self._completed(event)
            elif isinstance(event, Finished):
                new = self._finished(event)
            if new is not None:
                out.append(new)
        return out

    def _answer(self, choice: int, slot: int) -> None:
        self._answers.add((choice, slot))
        self._answered.add(choice)
        if choice in self._texted:
            self.losses.append(Loss(f"$.choices[{choice}].message.content", _SENT_BEFORE))

    def _slot(self, choice: int, slot: int) -> int:
        others = self._others
        found = others.get((choice, slot))
        if found is None:
            found = others[(choice, slot)] = sum(1 for c, _ in others if c == choice)
        return found

    def _call_event(self, event: ToolCallStarted | ToolCallArgumentsDelta) -> StreamEvent | None:
        key = (event.choice, event.slot)
        if isinstance(event, ToolCallStarted):
            if event.name == ANSWER_TOOL and event.choice not in self._answered:
                self._answer(*key)
                return None
        elif key in self._answers:
            return TextDelta(event.delta, event.choice)
        if key in self._answers:
            return None
        return msgspec.structs.replace(event, slot=self._slot(*key))

    def _completed(self, event: ToolCallCompleted) -> StreamEvent | None:
        key = (event.choice, event.slot)
        if key not in self._answers:
            if event.call.name == ANSWER_TOOL and event.choice not in self._answered:
                # A call sent whole (Gemini, Ollama): its text at once.
                self._answer(*key)
                call = event.call
                if isinstance(call, ToolCall):
                    return TextDelta(bytes(call.arguments).decode(), event.choice)
                return TextDelta(call.arguments, event.choice)
            return msgspec.structs.replace(event, slot=self._slot(*key))
        return None

    def _finished(self, event: Finished) -> StreamEvent:
        choice = event.choice
        if (
            event.finish_reason is FinishReason.TOOL_CALLS
            and choice in self._answered
            and not any(c == choice for c, _ in self._others)
        ):
            return Finished(FinishReason.STOP, None, choice)
        return event
