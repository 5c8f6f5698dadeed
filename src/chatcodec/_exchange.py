"""Requests and responses: what goes to a provider and what comes back.

These are canonical, provider-neutral values. Each provider codec
(:mod:`chatcodec.providers`) reads its wire format into them and writes them
back; what a provider sends that has no canonical field stays in ``extras``
under the provider's name, so that the same provider gets it back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from msgspec import Raw

from ._depth import check_depth
from ._errors import ValidationError
from ._fields import check_extras
from ._frozen import FrozenDict, FrozenMap, freeze_fields
from ._messages import AssistantMessage, Message
from ._record import Record
from ._tools import InvalidToolCall, ToolCall, ToolDefinition
from ._usage import FinishReason, Usage

__all__ = [
    "Choice",
    "ProviderTool",
    "Reasoning",
    "Request",
    "Response",
    "ResponseFormat",
    "Tool",
    "ToolChoice",
]


class ProviderTool(Record, frozen=True, tag_field="type", tag="provider"):
    """A tool only one provider knows (web search, code execution...), verbatim.

    Parameters
    ----------
    provider : str
        The provider that runs it.
    data : msgspec.Raw
        The tool's JSON as that provider takes it.
    """

    provider: str
    data: Raw

    def __post_init__(self) -> None:
        if not self.provider:
            raise ValidationError("must not be empty", "$.provider")


Tool = ToolDefinition | ProviderTool
"""A function the application runs, or a tool a provider runs itself."""


class ToolChoice(Record, frozen=True):
    """Whether and which tool the model must call.

    Parameters
    ----------
    mode : {"auto", "none", "required", "tool"}
        ``"tool"`` forces the tool ``name``.
    name : str, optional
        The forced tool, with ``mode="tool"``.
    """

    mode: Literal["auto", "none", "required", "tool"] = "auto"
    name: str | None = None

    def __post_init__(self) -> None:
        mode: object = self.mode  # any value may be given: checked here
        name: object = self.name
        if type(mode) is not str or mode not in _MODES:
            raise ValidationError("must be 'auto', 'none', 'required' or 'tool'", "$.mode")
        if name is not None and type(name) is not str:
            raise ValidationError("must be a string", "$.name")
        if (mode == "tool") != (name is not None):
            raise ValidationError('must be set exactly when mode is "tool"', "$.name")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


_MODES = frozenset(("auto", "none", "required", "tool"))


class ResponseFormat(Record, frozen=True):
    """The shape the answer must take.

    Parameters
    ----------
    type : {"text", "json_object", "json_schema"}
        Plain text, any JSON object, or JSON matching ``schema``.
    name : str, optional
        The schema's name (OpenAI requires one).
    schema : dict, optional
        JSON Schema of the answer, with ``type="json_schema"``.
    strict : bool, optional
        Whether the provider must follow the schema exactly.
    """

    type: Literal["text", "json_object", "json_schema"] = "text"
    name: str | None = None
    schema: dict[str, Any] | None = None
    strict: bool | None = None

    def __post_init__(self) -> None:
        # The schema is frozen like a tool's parameters: what was checked is sent.
        kind: object = self.type  # any value may be given: checked here
        if type(kind) is not str or kind not in _FORMATS:
            raise ValidationError("must be 'text', 'json_object' or 'json_schema'", "$.type")
        name: object = self.name
        if name is not None and type(name) is not str:
            raise ValidationError("must be a string", "$.name")
        if self.strict is not None and self.strict is not True and self.strict is not False:
            raise ValidationError("must be true or false", "$.strict")
        schema: object = self.schema
        if schema is not None and type(schema) is not FrozenDict:
            if isinstance(schema, dict):
                # As a tool's: too deep for the walks that read it is refused here.
                check_depth(schema, "$.schema")
            freeze_fields(self, "schema")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)


_FORMATS = frozenset(("text", "json_object", "json_schema"))


Effort = Literal["none", "minimal", "low", "medium", "high"]
"""How hard the model should think, in OpenAI's words."""

_EFFORTS = frozenset(("none", "minimal", "low", "medium", "high"))

EFFORT_BUDGETS: Mapping[str, int] = FrozenMap(
    {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
)
"""The thinking budget (tokens) that stands for an effort, for a target that takes a budget."""


def effort_of(budget: int) -> Effort:
    """The effort a thinking budget (tokens) stands for, for a target that takes an effort."""
    if budget <= 0:
        return "none"
    if budget <= EFFORT_BUDGETS["minimal"]:
        return "minimal"
    if budget <= EFFORT_BUDGETS["low"]:
        return "low"
    if budget <= EFFORT_BUDGETS["medium"]:
        return "medium"
    return "high"


class Reasoning(Record, frozen=True):
    """How much the model may think before it answers.

    Providers say it two ways: an effort (OpenAI ``reasoning_effort``, Gemini
    3 ``thinkingLevel``, Ollama ``think``) or a token budget (Anthropic
    ``thinking.budget_tokens``, Gemini ``thinkingBudget``). Both ``None``:
    thinking is on, at the provider's default.

    Parameters
    ----------
    effort : {"none", "minimal", "low", "medium", "high"}, optional
        ``"none"`` turns thinking off.
    budget_tokens : int, optional
        The most tokens thinking may take; 0 turns it off.
    """

    effort: Effort | None = None
    budget_tokens: int | None = None

    def __post_init__(self) -> None:
        effort: object = self.effort  # any value may be given: checked here
        budget: object = self.budget_tokens
        if effort is not None and (type(effort) is not str or effort not in _EFFORTS):
            raise ValidationError(
                "must be 'none', 'minimal', 'low', 'medium' or 'high'", "$.effort"
            )
        if budget is not None:
            if type(budget) is not int:
                raise ValidationError("must be an integer", "$.budget_tokens")
            if budget < 0:
                raise ValidationError("must not be negative", "$.budget_tokens")
            if budget >= 2**64:
                raise ValidationError("must be an integer within 64 bits", "$.budget_tokens")
        if self.extras is not None and type(self.extras) is not dict:
            check_extras(self.extras)

    @property
    def off(self) -> bool:
        """Whether thinking is turned off."""
        return self.effort == "none" or self.budget_tokens == 0


class Request(Record, frozen=True):
    """A chat request: messages, tools and generation settings.

    The settings mean the same for every provider, and each codec maps them
    to its own keys (see the table in docs/providers.md). Parameters the canonical form
    has no field for (safety settings, logprobs...) stay in ``extras`` under
    the provider's name.

    Parameters
    ----------
    messages : tuple of Message
        The conversation.
    model : str, optional
        The model's name.
    tools, tool_choice, parallel_tool_calls : optional
        The tools, whether and which one the model must call, and whether it
        may call several at once.
    max_tokens : int, optional
        The most output tokens (OpenAI ``max_tokens`` or
        ``max_completion_tokens``, Gemini ``maxOutputTokens``, Ollama
        ``num_predict``).
    temperature, top_p, top_k, seed : optional
        Sampling.
    stop : tuple of str, optional
        Stop sequences.
    stream : bool, optional
        Whether the answer streams.
    response_format : ResponseFormat, optional
        Structured output.
    presence_penalty, frequency_penalty : float, optional
        Penalties for repeating tokens.
    n : int, optional
        How many answers (choices) to generate.
    user : str, optional
        An id of the end user (Anthropic ``metadata.user_id``).
    reasoning : Reasoning, optional
        How much the model may think.

    Examples
    --------
    >>> from chatcodec import user
    >>> request = Request((user("Hi"),), model="gpt-4o-mini", max_tokens=64, seed=7)
    >>> request.max_tokens, request.seed
    (64, 7)
    """

    messages: tuple[Message, ...] = ()
    model: str | None = None
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] | None = None
    stream: bool | None = None
    response_format: ResponseFormat | None = None
    top_k: int | None = None
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    n: int | None = None
    user: str | None = None
    reasoning: Reasoning | None = None


class Choice(Record, frozen=True):
    """One of the answers in a response (most responses have exactly one).

    ``message`` is ``None`` when the provider sent no content at all (an
    answer cut off before its first token, a blocked candidate).
    ``finish_reason`` is normalized; ``raw_finish_reason`` is what the
    provider said, kept as sent (a string, or an integer enum). A reason
    the provider left unspecified (Gemini's ``FINISH_REASON_UNSPECIFIED``)
    is ``None``, its raw name kept; another family never writes that name
    (Anthropic writes a null ``stop_reason``; OpenAI, whose reason is
    required, ``"stop"``).
    """

    message: AssistantMessage | None = None
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | int | None = None
    index: int | None = None


class Response(Record, frozen=True):
    """A provider's answer: choices, usage, id and model.

    Examples
    --------
    >>> from chatcodec import assistant
    >>> response = Response((Choice(assistant("Hello!"), FinishReason.STOP),))
    >>> response.message.text, response.finish_reason
    ('Hello!', <FinishReason.STOP: 'stop'>)
    """

    choices: tuple[Choice, ...] = ()
    id: str | None = None
    model: str | None = None
    usage: Usage | None = None

    @property
    def message(self) -> AssistantMessage | None:
        """The first choice's message."""
        return self.choices[0].message if self.choices else None

    @property
    def finish_reason(self) -> FinishReason | None:
        """The first choice's normalized finish reason."""
        return self.choices[0].finish_reason if self.choices else None

    @property
    def text(self) -> str:
        """The first choice's answer text (``""`` when it has none)."""
        message = self.message
        return message.text if message is not None else ""

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The first choice's tool calls."""
        message = self.message
        return message.tool_calls if message is not None else ()

    @property
    def invalid_tool_calls(self) -> tuple[InvalidToolCall, ...]:
        """The first choice's tool calls whose arguments were not a JSON object."""
        message = self.message
        return message.invalid_tool_calls if message is not None else ()
