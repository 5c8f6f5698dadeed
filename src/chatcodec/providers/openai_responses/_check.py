"""Preflight: the rules behind the Responses API's HTTP 400 answers to a request.

Each rule is one function over the canonical request; a broken rule is a
:class:`~chatcodec.Problem` at the canonical JSON path. ``"error"`` means
OpenAI refuses the request; ``"warning"`` means it likely does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import msgspec

from ..._content import AssistantPart, OpaquePart, ReasoningPart
from ..._exchange import ProviderTool, Request
from ..._messages import AssistantMessage, ToolMessage
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._profiles import profile_problems, sampling_problems
from ._common import NAME

__all__ = ["check_request"]

MAX_TOOLS = 128
MIN_OUTPUT_TOKENS = 16
_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_STATE = ("previous_response_id", "conversation")
_decode = msgspec.json.Decoder().decode


def _server_state(request: Request) -> bool:
    own = (request.extras or {}).get(NAME)
    return isinstance(own, dict) and any(own.get(key) for key in _STATE)


def _input(request: Request) -> Iterator[Problem]:
    if not request.messages and not _server_state(request):
        yield Problem("$.messages", "must not be empty")


def _model(request: Request) -> Iterator[Problem]:
    if not request.model:
        yield Problem("$.model", "must be set")


def _tool_results(request: Request) -> Iterator[Problem]:
    """Each tool output answers a call made earlier in the input.

    With ``previous_response_id`` or ``conversation`` the call may be on
    OpenAI's side, out of sight. A built-in call item the client runs
    (``tool_search_call``...) is answered by a function output too.
    """
    if _server_state(request):
        return
    calls: set[str] = set()
    for i, m in enumerate(request.messages):
        if isinstance(m, AssistantMessage):
            calls.update(call.id for call in m.tool_calls)
            calls.update(call.id for call in m.invalid_tool_calls if call.id)
            if isinstance(m.content, tuple):
                calls.update(_opaque_call_ids(m.content))
        elif isinstance(m, ToolMessage) and m.tool_call_id not in calls:
            yield Problem(
                f"$.messages[{i}].tool_call_id", "must answer a tool call earlier in the input"
            )


def _opaque_call_ids(parts: tuple[AssistantPart, ...]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, OpaquePart) and part.provider == NAME:
            item = _decode(part.data)
            if type(item) is dict and type(item.get("call_id")) is str:
                yield item["call_id"]


def _reasoning(request: Request) -> Iterator[Problem]:
    for i, m in enumerate(request.messages):
        if isinstance(m, AssistantMessage) and isinstance(m.content, tuple):
            for j, part in enumerate(m.content):
                if isinstance(part, ReasoningPart) and part.provider != NAME:
                    yield Problem(
                        f"$.messages[{i}].content[{j}]",
                        "reasoning of another provider is not sent",
                        severity="warning",
                    )


def _tools(request: Request) -> Iterator[Problem]:
    if len(request.tools) > MAX_TOOLS:
        yield Problem("$.tools", f"must have at most {MAX_TOOLS} tools")
    seen: set[str] = set()
    for i, tool in enumerate(request.tools):
        if isinstance(tool, ProviderTool):
            if tool.provider != NAME:
                yield Problem(f"$.tools[{i}]", "is a tool of another provider")
            continue
        if tool.name in seen:
            yield Problem(f"$.tools[{i}].name", "tool names must be unique")
        seen.add(tool.name)


def _tool_choice(request: Request) -> Iterator[Problem]:
    choice = request.tool_choice
    if choice is None or choice.mode != "tool":
        return
    names = {t.name for t in request.tools if isinstance(t, ToolDefinition)}
    if choice.name not in names:
        yield Problem("$.tool_choice.name", "must name a function tool of the request")


def _sampling(request: Request) -> Iterator[Problem]:
    if request.temperature is not None and not 0 <= request.temperature <= 2:
        yield Problem("$.temperature", "must be between 0 and 2")
    if request.top_p is not None and not 0 <= request.top_p <= 1:
        yield Problem("$.top_p", "must be between 0 and 1")
    for path, rule in sampling_problems(NAME, request.model, request.temperature, request.top_p):
        yield Problem(path, rule)
    if request.max_tokens is not None and request.max_tokens < MIN_OUTPUT_TOKENS:
        yield Problem("$.max_tokens", f"must be at least {MIN_OUTPUT_TOKENS}")
    if request.stop:
        yield Problem("$.stop", "the Responses API has no stop sequences", severity="warning")


def _format(request: Request) -> Iterator[Problem]:
    fmt = request.response_format
    if fmt is None or fmt.type != "json_schema":
        return
    if fmt.name is not None and not _SCHEMA_NAME.fullmatch(fmt.name):
        yield Problem("$.response_format.name", "must match ^[A-Za-z0-9_-]{1,64}$")
    if fmt.schema is None:
        yield Problem("$.response_format.schema", "must be set for json_schema")


def _profile(request: Request) -> Iterator[Problem]:
    yield from profile_problems(NAME, request)


_RULES: tuple[Callable[[Request], Iterator[Problem]], ...] = (
    _input,
    _model,
    _tool_results,
    _reasoning,
    _tools,
    _tool_choice,
    _sampling,
    _format,
    _profile,
)


def check_request(request: Request) -> list[Problem]:
    """What the Responses API would refuse in this request, as problems.

    Parameters
    ----------
    request : Request
        The canonical request.

    Returns
    -------
    list of Problem
        Empty when the request passes every rule.

    Examples
    --------
    >>> from chatcodec import Request, tool_result, user
    >>> from chatcodec import providers
    >>> codec = providers.get("openai-responses")
    >>> [str(p) for p in codec.check_request(Request((user("Hi"),), model="gpt-5"))]
    []
    >>> [p.path for p in codec.check_request(Request((tool_result("call_1", "18C"),)))]
    ['$.model', '$.messages[0].tool_call_id']
    """
    problems: list[Problem] = []
    for rule in _RULES:
        problems.extend(rule(request))
    return problems
