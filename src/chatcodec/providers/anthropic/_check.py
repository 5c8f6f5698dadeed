"""Preflight rules: what the Messages API refuses with a 400.

Each rule names the canonical path of the offending value. Tool results are
checked as the encoder groups them: the messages between two assistant
messages form one user turn.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._content import ImagePart, TextPart
from ..._exchange import ProviderTool, Request
from ..._frozen import FrozenMap
from ..._messages import AssistantMessage, ToolMessage, UserMessage
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._cache import CACHE_LIMITS, count_cache
from .._models import foreign_model
from .._profiles import (
    ADAPTIVE_ONLY,
    ALWAYS_THINKS,
    BUDGET_ONLY,
    profile,
    profile_problems,
    sampling_problems,
)
from ._decode import NAME
from ._encode_parts import IMAGE_TYPES, borrow_cache
from ._settings import THINKING_MIN, thinking_sent


def _parts(request: Request, found: list[Problem]) -> None:
    """Empty text blocks and image types Anthropic does not take.

    Files of a type Anthropic does not take are dropped by the encoder (and
    reported as lost), so they are no problem here.
    """
    last = len(request.messages) - 1
    for i, message in enumerate(request.messages):
        content = getattr(message, "content", None)
        if (
            type(message) is AssistantMessage
            and i != last
            and not message.tool_calls
            and (not content or all(type(p) is TextPart and not p.text for p in content))
        ):
            rule = "must not be empty (only the final assistant message may be)"
            found.append(Problem(f"$.messages[{i}].content", rule))
            continue
        if type(content) is not tuple:
            continue
        for j, part in enumerate(content):
            path = f"$.messages[{i}].content[{j}]"
            kind = type(part)
            if kind is TextPart and not part.text:
                found.append(Problem(path + ".text", "text blocks must not be empty"))
            elif kind is ImagePart and part.data is not None and part.media_type not in IMAGE_TYPES:
                rule = "must be image/jpeg, image/png, image/gif or image/webp"
                found.append(Problem(path + ".media_type", rule))


def _tool_pairs(request: Request, found: list[Problem]) -> None:
    """Each tool result answers a call of the assistant message just before its turn."""
    messages = request.messages
    calls: set[str] = set()
    answered: set[str] = set()
    pending: list[tuple[str, str]] = []  # calls of the last assistant message
    previous: type | None = None
    for i, message in enumerate(messages):
        kind = type(message)
        if kind is AssistantMessage:
            assert isinstance(message, AssistantMessage)
            if previous is not AssistantMessage:  # Anthropic merges consecutive turns
                _unanswered(pending, answered, found)
                calls, answered, pending = set(), set(), []
            for j, call in enumerate(message.tool_calls):
                calls.add(call.id)
                pending.append((call.id, f"$.messages[{i}].tool_calls[{j}].id"))
            for j, bad in enumerate(message.invalid_tool_calls):
                if bad.id is not None:
                    calls.add(bad.id)
                    pending.append((bad.id, f"$.messages[{i}].invalid_tool_calls[{j}].id"))
        elif kind is ToolMessage:
            assert isinstance(message, ToolMessage)
            if message.tool_call_id not in calls:
                rule = "must answer a tool call of the assistant message just before this turn"
                found.append(Problem(f"$.messages[{i}].tool_call_id", rule))
            answered.add(message.tool_call_id)
        elif kind is not UserMessage:
            # a system turn ends the user turn: its calls can no longer be answered
            _unanswered(pending, answered, found)
            calls, answered, pending = set(), set(), []
        previous = kind
    if pending and type(messages[-1]) is not AssistantMessage:
        _unanswered(pending, answered, found)


def _unanswered(pending: list[tuple[str, str]], answered: set[str], found: list[Problem]) -> None:
    for id_, path in pending:
        if id_ not in answered:
            rule = "must be answered by a tool result in the next user turn"
            found.append(Problem(path, rule))


def _tools(request: Request, found: list[Problem]) -> None:
    names: list[str] = []
    for i, tool in enumerate(request.tools):
        if type(tool) is ToolDefinition:
            names.append(tool.name)
            found.extend(
                Problem(f"$.tools[{i}]{problem.path[1:]}", problem.rule, problem.severity)
                for problem in tool.problems(NAME)
            )
        elif type(tool) is ProviderTool and tool.provider == NAME:
            try:
                data = msgspec.json.decode(tool.data)
            except msgspec.DecodeError:
                continue
            if type(data) is dict and type(data.get("name")) is str:
                names.append(data["name"])
    seen: set[str] = set()
    for k, name in enumerate(names):
        if name in seen:
            found.append(Problem(f"$.tools[{k}].name", "tool names must be unique"))
        seen.add(name)
    choice = request.tool_choice
    if choice is None:
        return
    if choice.mode in ("required", "tool") and not request.tools:
        found.append(Problem("$.tool_choice", "needs tools to choose from"))
    elif choice.mode == "tool" and choice.name not in seen:
        found.append(Problem("$.tool_choice.name", "must name one of the tools"))


# A form of thinking sent as kept (not read as canonical) that the model's
# profile refuses: the column that says so, and the rule.
_REFUSED_FORMS = FrozenMap(
    {
        "enabled": ("thinking_budget", ADAPTIVE_ONLY),
        "adaptive": ("adaptive", BUDGET_ONLY),
        "disabled": ("thinking_off", ALWAYS_THINKS),
    }
)


_NO_FORM = "must have a type: enabled, adaptive or disabled"


def _thinking(request: Request, found: list[Problem]) -> None:
    """The rules of the ``thinking`` the encoder writes, for the request's model."""
    own = (request.extras or {}).get(NAME)
    kept: Any = own.get("thinking") if type(own) is dict else None
    if request.reasoning is not None:
        # The encoder writes the form the model takes (reporting any change).
        wire = thinking_sent(request).thinking
        path = "$.reasoning"
    elif type(kept) is dict and type(kept.get("type")) is str and kept["type"] in _REFUSED_FORMS:
        wire, path = kept, f"$.extras.{NAME}.thinking"
        column, rule = _REFUSED_FORMS[kept["type"]]
        found_profile = profile(NAME, request.model)
        if found_profile is not None and getattr(found_profile, column) is False:
            found.append(Problem(path, rule))
            return  # the form's own rules say nothing more to such a model
    elif type(kept) is dict and "type" not in kept:
        found.append(Problem(f"$.extras.{NAME}.thinking", _NO_FORM))
        return
    else:
        return
    if wire is None or wire.get("type") != "enabled":
        # No thinking, or adaptive thinking: the model may answer without
        # thinking, and a forced tool is taken (a recorded request had one).
        return
    budget = wire.get("budget_tokens")
    where = f"{path}.budget_tokens"
    if type(budget) is not int or budget < THINKING_MIN:
        found.append(Problem(where, f"must be an integer of at least {THINKING_MIN}"))
    elif request.max_tokens is not None and budget >= request.max_tokens:
        found.append(Problem(where, "must be less than max_tokens"))
    if request.temperature is not None and request.temperature != 1:
        found.append(Problem("$.temperature", "must be 1 or unset when thinking is enabled"))
    if request.top_p is not None and request.top_p < 0.95:
        found.append(Problem("$.top_p", "must be at least 0.95 when thinking is enabled"))
    choice = request.tool_choice
    if choice is not None and choice.mode in ("required", "tool"):
        rule = 'must be "auto" or "none" when thinking is enabled'
        found.append(Problem("$.tool_choice.mode", rule))


CACHE_POINTS = CACHE_LIMITS[NAME]
"""The most cache breakpoints a request may set (blocks, tools, and the automatic one)."""


def _cached(extras: dict[str, Any] | None) -> bool:
    """Whether what holds ``extras`` is written with a ``cache_control`` kept there."""
    if not extras:
        return False  # the usual part
    own = (borrow_cache(extras) or {}).get(NAME)
    return type(own) is dict and own.get("cache_control") is not None


def _kept_count(request: Request) -> int:
    """How many ``cache_control`` keys the extras keep (another form, automatic caching)."""
    own = request.extras.get(NAME) if request.extras else None
    n = int(type(own) is dict and own.get("cache_control") is not None)
    n += sum(_cached(tool.extras) for tool in request.tools)
    for message in request.messages:
        n += _cached(message.extras)
        content = getattr(message, "content", None)
        if type(content) is tuple:
            n += sum(_cached(part.extras) for part in content)
        n += sum(_cached(call.extras) for call in getattr(message, "tool_calls", ()))
    return n


def _point(record: Any, path: str, points: list[str]) -> None:
    """Add ``record``'s cache point, canonical or kept in its extras, to ``points``."""
    if getattr(record, "cache", None) is not None:
        points.append(path + ".cache")
    elif _cached(record.extras):
        points.append(path + ".cache_control")


def _cache_points(request: Request, found: list[Problem]) -> None:
    """At most four cache breakpoints: tools, instructions, blocks and calls alike.

    A top-level ``cache_control`` (automatic caching) takes one of the four.
    """
    if count_cache(request) + _kept_count(request) <= CACHE_POINTS:
        return  # the usual request: counted, no paths built
    points: list[str] = []
    own = request.extras.get(NAME) if request.extras else None
    if type(own) is dict and own.get("cache_control") is not None:
        points.append(f"$.extras.{NAME}.cache_control")
    for k, tool in enumerate(request.tools):
        _point(tool, f"$.tools[{k}]", points)
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        _point(message, path, points)
        content = getattr(message, "content", None)
        if type(content) is tuple:
            for j, part in enumerate(content):
                _point(part, f"{path}.content[{j}]", points)
        for j, call in enumerate(getattr(message, "tool_calls", ())):
            _point(call, f"{path}.tool_calls[{j}]", points)
    if len(points) > CACHE_POINTS:
        rule = f"at most {CACHE_POINTS} cache points: Anthropic refuses more"
        found.append(Problem(points[CACHE_POINTS], rule))


def check_request(request: Request) -> list[Problem]:
    """Find what Anthropic would refuse (see the package's ``check_request``)."""
    found: list[Problem] = []
    if request.model is None:
        found.append(Problem("$.model", "must be set: Anthropic requires it"))
    else:
        foreign = foreign_model(request.model, NAME)
        if foreign is not None:
            found.append(Problem("$.model", foreign))
    if request.max_tokens is None:
        found.append(Problem("$.max_tokens", "must be set: Anthropic requires it"))
    elif request.max_tokens < 1:
        found.append(Problem("$.max_tokens", "must be at least 1"))
    if not any(type(m) in (UserMessage, AssistantMessage, ToolMessage) for m in request.messages):
        found.append(Problem("$.messages", "must hold a user or assistant message"))
    for key in ("temperature", "top_p"):
        value = getattr(request, key)
        if value is not None and not 0 <= value <= 1:
            found.append(Problem("$." + key, "must be between 0 and 1"))
    found.extend(
        Problem(path, rule)
        for path, rule in sampling_problems(
            NAME, request.model, request.temperature, request.top_p, request.top_k
        )
    )
    for k, stop in enumerate(request.stop or ()):
        if not stop.strip():
            rule = "stop sequences must contain non-whitespace"
            found.append(Problem(f"$.stop[{k}]", rule, severity="warning"))
    _parts(request, found)
    _tool_pairs(request, found)
    _tools(request, found)
    _thinking(request, found)
    _cache_points(request, found)
    found.extend(profile_problems(NAME, request))
    return found
