"""Preflight: the rules behind OpenAI's HTTP 400 answers to a chat request.

Each rule is one function over the canonical request; a broken rule is a
:class:`~chatcodec.Problem` at the canonical JSON path. ``"error"`` means
OpenAI refuses the request; ``"warning"`` means it likely does (or a
dialect does).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from ..._content import TextPart
from ..._exchange import Request
from ..._messages import AssistantMessage, ToolMessage
from ..._paths import key_step
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._cache import cache_limit, cache_points, count_cache
from .._profiles import profile_problems, sampling_problems
from ._common import NAME

__all__ = ["check_request"]

MAX_TOOLS = 128
MAX_STOP = 4
_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _messages(request: Request) -> Iterator[Problem]:
    if not request.messages:
        yield Problem("$.messages", "must not be empty")


def _model(request: Request) -> Iterator[Problem]:
    if not request.model:
        yield Problem("$.model", "must be set")


def _tool_results(request: Request) -> Iterator[Problem]:
    """Tool messages answer the calls of the assistant message just before them."""
    open_calls: dict[str, int] = {}
    owner = -1
    for i, m in enumerate(request.messages):
        if isinstance(m, ToolMessage):
            if m.tool_call_id not in open_calls:
                yield Problem(
                    f"$.messages[{i}].tool_call_id",
                    "must answer a tool call of the preceding assistant message",
                )
            else:
                del open_calls[m.tool_call_id]
            continue
        yield from _unanswered(open_calls, owner)
        open_calls = {}
        if isinstance(m, AssistantMessage):
            owner = i
            open_calls = {call.id: j for j, call in enumerate(m.tool_calls)}
            open_calls.update(
                (call.id, j) for j, call in enumerate(m.invalid_tool_calls) if call.id
            )
    yield from _unanswered(open_calls, owner, last=True)


def _unanswered(open_calls: dict[str, int], owner: int, last: bool = False) -> Iterator[Problem]:
    # A conversation may end on tool calls only when nothing follows them.
    if last:
        return
    for j in open_calls.values():
        yield Problem(
            f"$.messages[{owner}].tool_calls[{j}]",
            "each tool call must be answered by a tool message before the next message",
        )


def _tool_content(request: Request) -> Iterator[Problem]:
    for i, m in enumerate(request.messages):
        if isinstance(m, ToolMessage) and not isinstance(m.content, str):
            for j, part in enumerate(m.content):
                if not isinstance(part, TextPart):
                    yield Problem(
                        f"$.messages[{i}].content[{j}]", "tool message parts must be text"
                    )


def _assistant_content(request: Request) -> Iterator[Problem]:
    for i, m in enumerate(request.messages):
        if not isinstance(m, AssistantMessage):
            continue
        if not m.tool_calls and not m.invalid_tool_calls and not m.text:
            content = m.content
            if content is None or not isinstance(content, str):
                yield Problem(
                    f"$.messages[{i}].content",
                    "needs text content unless it has tool calls",
                    "warning",
                )
        for j, _ in enumerate(m.invalid_tool_calls):
            yield Problem(
                f"$.messages[{i}].invalid_tool_calls[{j}]",
                "arguments should be a JSON object",
                "warning",
            )


def _tools(request: Request) -> Iterator[Problem]:
    tools = request.tools
    if len(tools) > MAX_TOOLS:
        yield Problem("$.tools", f"must have at most {MAX_TOOLS} tools")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, ToolDefinition):
            if tool.provider != NAME:
                yield Problem(f"$.tools[{i}]", "must be a function or an openai tool")
            continue
        if tool.name in seen:
            yield Problem(f"$.tools[{i}].name", "tool names must be unique", "warning")
        seen.add(tool.name)
        for problem in tool.problems(NAME):
            yield Problem(f"$.tools[{i}]" + problem.path[1:], problem.rule, problem.severity)
        if tool.strict:
            params = tool.emitted_parameters()
            for path in _optional_properties(params, f"$.tools[{i}].parameters"):
                yield Problem(path, "strict tools must list every property in required")


def _optional_properties(schema: Any, path: str) -> Iterator[str]:
    if type(schema) is dict:
        props = schema.get("properties")
        if type(props) is dict:
            required = schema.get("required")
            if type(required) is not list:  # absent, or not the array of names it must be
                required = ()
            if any(key not in required for key in props):
                yield f"{path}.required"
            for key, sub in props.items():
                yield from _optional_properties(sub, f"{path}.properties{key_step(key)}")
        if "items" in schema:
            yield from _optional_properties(schema["items"], f"{path}.items")
        for key in ("anyOf", "$defs"):
            subs = schema.get(key)
            if type(subs) is list:
                for k, sub in enumerate(subs):
                    yield from _optional_properties(sub, f"{path}.{key}[{k}]")
            elif type(subs) is dict:
                for k, sub in subs.items():
                    yield from _optional_properties(sub, f"{path}.{key}{key_step(k)}")


def _tool_choice(request: Request) -> Iterator[Problem]:
    choice = request.tool_choice
    if choice is not None and choice.mode != "none" and not request.tools:
        yield Problem("$.tool_choice", "is only allowed when tools are given")
    elif choice is not None and choice.mode == "tool":
        names = {t.name for t in request.tools if isinstance(t, ToolDefinition)}
        if choice.name not in names:
            yield Problem("$.tool_choice.name", "must name one of the tools")
    if request.parallel_tool_calls is not None and not request.tools:
        yield Problem("$.parallel_tool_calls", "is only allowed when tools are given")


def _sampling(request: Request) -> Iterator[Problem]:
    if request.temperature is not None and not 0 <= request.temperature <= 2:
        yield Problem("$.temperature", "must be between 0 and 2")
    if request.top_p is not None and not 0 <= request.top_p <= 1:
        yield Problem("$.top_p", "must be between 0 and 1")
    for path, rule in sampling_problems(NAME, request.model, request.temperature, request.top_p):
        yield Problem(path, rule)
    if request.max_tokens is not None and request.max_tokens < 1:
        yield Problem("$.max_tokens", "must be at least 1")
    if request.stop is not None and len(request.stop) > MAX_STOP:
        yield Problem("$.stop", f"must have at most {MAX_STOP} sequences")
    own = (request.extras or {}).get(NAME) or {}
    if own.get("stream_options") is not None and request.stream is not True:
        yield Problem("$.extras.openai.stream_options", "is only allowed when streaming")


def _response_format(request: Request) -> Iterator[Problem]:
    rf = request.response_format
    if rf is None or rf.type != "json_schema":
        return
    if rf.name is None:
        yield Problem("$.response_format.name", "is required for json_schema")
    elif _SCHEMA_NAME.fullmatch(rf.name) is None:
        yield Problem("$.response_format.name", "must match ^[a-zA-Z0-9_-]{1,64}$")


def _profile(request: Request) -> Iterator[Problem]:
    yield from profile_problems(NAME, request)


def _cache(request: Request) -> Iterator[Problem]:
    """More cache points than a gateway's Claude model takes (Anthropic's limit)."""
    limit = cache_limit(NAME, request.model)
    if limit is not None and count_cache(request) > limit:
        rule = (
            f"at most {limit} cache points: the gateway passes them to Claude, which refuses more"
        )
        yield Problem(cache_points(request)[limit], rule)


_RULES: tuple[Callable[[Request], Iterator[Problem]], ...] = (
    _messages,
    _model,
    _tool_results,
    _tool_content,
    _assistant_content,
    _tools,
    _tool_choice,
    _sampling,
    _response_format,
    _profile,
    _cache,
)


def check_request(request: Request) -> list[Problem]:
    """Find what OpenAI would refuse in a request, before sending it.

    Parameters
    ----------
    request : Request
        The canonical request.

    Returns
    -------
    list of Problem
        One per broken rule, naming the canonical JSON path: empty messages
        or no model, tool results that answer no call of the assistant
        message before them, calls left unanswered, non-text parts in a tool
        result, tool limits and strict schemas, a forced tool that is not
        among the tools, sampling ranges, more than four stop sequences, a
        nameless JSON schema; and what the model's profile refuses (sampling
        values, a reasoning setting, a JSON schema format, images).
        ``"error"`` is a certain HTTP 400, ``"warning"`` a likely one.

    Examples
    --------
    >>> from chatcodec import Request, tool_result, user
    >>> from chatcodec.providers import openai
    >>> request = Request((user("Hi"), tool_result("call_1", "42")), model="gpt-4o")
    >>> [(p.path, p.rule) for p in openai.check_request(request)]
    [('$.messages[1].tool_call_id', 'must answer a tool call of the preceding assistant message')]
    """
    return [problem for rule in _RULES for problem in rule(request)]
