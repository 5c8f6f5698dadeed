"""Preflight: what Bedrock's ``Converse`` refuses with a ``ValidationException``.

Each rule names the canonical path it looks at. ``error``: Converse answers
400 for every model; ``warning``: it does for the models that check it (a
blank text block, an answer first). The request's shape (which
fields exist and their types) is checked by the encoder itself; these are
the rules on values and order that Converse enforces for every model.
"""

from __future__ import annotations

from typing import Any

from ..._content import ImagePart, OpaquePart, TextPart
from ..._exchange import ProviderTool, Request
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._cache import CACHE_LIMITS, cache_points, count_cache
from .._profiles import profile_problems, sampling_problems
from ._blocks import AFTER, IMAGE_FORMATS, NAME

__all__ = ["check_request"]

_BLANK = "a text block must not be blank"
_TOOLS = "tool calls and results need toolConfig tools"


def _texts(content: object, path: str, found: list[Problem]) -> None:
    if type(content) is str:
        if not content.strip():
            found.append(Problem(f"{path}.content", _BLANK, severity="warning"))
        return
    if not isinstance(content, tuple):
        return
    for j, part in enumerate(content):
        where = f"{path}.content[{j}]"
        if type(part) is TextPart and not part.text.strip():
            found.append(Problem(where, _BLANK, severity="warning"))
        elif type(part) is ImagePart:
            media = part.media_type or ""
            inline = part.data is not None or (part.url or "").startswith("data:")
            if not inline:
                found.append(Problem(where, "an image must be sent as bytes, not by URL"))
            elif part.data is not None and media.removeprefix("image/") not in IMAGE_FORMATS:
                found.append(Problem(where, "an image must be png, jpeg, gif or webp"))


def _messages(request: Request, found: list[Problem]) -> None:
    tools = any(isinstance(tool, ToolDefinition) for tool in request.tools)
    waiting: set[str] = set()  # the calls of the last assistant turn, not yet answered
    calls_at = ""
    started = False
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        if isinstance(message, SystemMessage | DeveloperMessage):
            continue
        if not started and not isinstance(message, UserMessage | ToolMessage):
            rule = "a conversation must start with a user message"  # Claude models take either
            found.append(Problem(path, rule, severity="warning"))
        started = True
        if isinstance(message, AssistantMessage):
            if waiting:
                found.append(Problem(calls_at, "tool calls must be answered in the next turn"))
            waiting = {call.id for call in message.tool_calls}
            calls_at = path
            if waiting and not tools:
                found.append(Problem(path, _TOOLS))
            if message.content is not None and not (message.tool_calls and message.content == ""):
                _texts(message.content, path, found)
        elif isinstance(message, ToolMessage):
            if not tools:
                found.append(Problem(path, _TOOLS))
            if message.tool_call_id in waiting:
                waiting.discard(message.tool_call_id)
            else:
                rule = "a tool result must answer a call of the assistant turn before it"
                found.append(Problem(f"{path}.tool_call_id", rule))
        else:
            if waiting:
                found.append(Problem(calls_at, "tool calls must be answered in the next turn"))
                waiting = set()
            _texts(message.content, path, found)
    if not started:
        found.append(Problem("$.messages", "must hold at least one user message"))


CACHE_POINTS = CACHE_LIMITS[NAME]
"""The most ``cachePoint`` blocks a Converse request may hold (every model that caches)."""
_CACHE_BLOCK = b'{"cachePoint"'


def _kept_count(request: Request) -> int:
    """How many ``cachePoint`` blocks ``request`` keeps whole (usually none)."""
    n = 0
    for tool in request.tools:
        if type(tool) is ProviderTool and _kept_point(tool):
            n += 1
    for message in request.messages:
        content = getattr(message, "content", None)
        if type(content) is tuple:
            for part in content:
                if type(part) is OpaquePart and _kept_point(part):
                    n += 1
        if message.extras:
            own = message.extras.get(NAME)
            after = own.get(AFTER) if type(own) is dict else None
            if type(after) is list:
                n += sum(type(block) is dict and "cachePoint" in block for block in after)
    return n


def _kept_point(record: Any) -> bool:
    """Whether a block kept whole (a part, a tool) is a ``cachePoint``."""
    kind = type(record)
    return (
        (kind is OpaquePart or kind is ProviderTool)
        and record.provider == NAME
        and bytes(record.data).startswith(_CACHE_BLOCK)
    )


def _cache_points(request: Request, found: list[Problem]) -> None:
    """At most four cache points: the canonical ones, and those kept whole in their place."""
    if count_cache(request) + _kept_count(request) <= CACHE_POINTS:
        return  # the usual request: counted, no paths built
    points = cache_points(request)
    points += [f"$.tools[{k}]" for k, tool in enumerate(request.tools) if _kept_point(tool)]
    for i, message in enumerate(request.messages):
        content = getattr(message, "content", None)
        if type(content) is tuple:
            points += [
                f"$.messages[{i}].content[{j}]"
                for j, part in enumerate(content)
                if _kept_point(part)
            ]
        own = (message.extras or {}).get(NAME)
        after = own.get(AFTER) if type(own) is dict else None
        if type(after) is list:
            points += [
                f"$.messages[{i}].extras.{NAME}.{AFTER}[{k}]"
                for k, block in enumerate(after)
                if type(block) is dict and "cachePoint" in block
            ]
    if len(points) > CACHE_POINTS:
        rule = f"at most {CACHE_POINTS} cache points: Bedrock refuses more"
        found.append(Problem(points[CACHE_POINTS], rule))


def check_request(request: Request) -> list[Problem]:
    """Return what Bedrock's ``Converse`` would refuse in ``request``.

    Parameters
    ----------
    request : Request
        The canonical request, as it would be encoded.

    Returns
    -------
    list of Problem
        Empty when Converse should accept the request.

    Examples
    --------
    >>> from chatcodec import Request, assistant, user
    >>> from chatcodec.providers import bedrock
    >>> [p.rule for p in bedrock.check_request(Request((assistant("Hi"),)))]
    ['a conversation must start with a user message']
    """
    found: list[Problem] = []
    _messages(request, found)
    _cache_points(request, found)
    for name in ("temperature", "top_p"):
        value = getattr(request, name)
        if value is not None and not 0 <= value <= 1:
            found.append(Problem(f"$.{name}", "must be between 0 and 1"))
    found.extend(
        Problem(path, rule)
        for path, rule in sampling_problems(
            NAME, request.model, request.temperature, request.top_p, request.top_k
        )
    )
    found.extend(profile_problems(NAME, request))
    if request.max_tokens is not None and request.max_tokens < 1:
        found.append(Problem("$.max_tokens", "must be at least 1"))
    choice = request.tool_choice
    if choice is not None:
        if choice.mode == "none":
            found.append(Problem("$.tool_choice", 'bedrock has no tool choice "none"'))
        elif not request.tools:
            found.append(Problem("$.tool_choice", "needs tools"))
    return found
