"""Preflight: what Gemini refuses with a 400, found before sending.

Each rule names the canonical path it looks at. ``error``: Gemini answers
400 (``INVALID_ARGUMENT``); ``warning``: it often does, depending on the
model or the API (Gemini API or Vertex AI).
"""

from __future__ import annotations

from ..._content import AudioPart, FilePart, ImagePart, TextPart
from ..._exchange import Request
from ..._messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._profiles import profile_problems
from ._common import NAME, signs_calls

STOP_LIMIT = 5
_SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")
_UNSIGNED = (
    "a gemini-3 function call without its thoughtSignature: it is sent with the"
    " placeholder Google documents for calls Gemini did not make"
)


def _has_signature(extras: object) -> bool:
    own = extras.get(NAME) if isinstance(extras, dict) else None
    return isinstance(own, dict) and any(key in own for key in _SIGNATURE_KEYS)


def _result_name(message: ToolMessage) -> bool:
    if message.name is not None:
        return True
    own = message.extras.get(NAME) if message.extras else None
    inner = own.get("functionResponse") if isinstance(own, dict) else None
    return isinstance(inner, dict) and "name" in inner


def _messages(request: Request, found: list[Problem]) -> None:
    messages = request.messages
    signed_model = signs_calls(request.model)
    ids: set[str] = set()
    started = False
    previous: object = None  # the last conversation message
    expected = 0  # results the last model turn with calls still waits for
    calls_at = -1
    for i, message in enumerate(messages):
        path = f"$.messages[{i}]"
        if isinstance(message, SystemMessage | DeveloperMessage):
            if started:
                found.append(
                    Problem(path, "instructions go before the conversation", severity="warning")
                )
            continue
        if expected and not isinstance(message, ToolMessage | AssistantMessage):
            found.append(_count(calls_at))
            expected = 0
        if not started and isinstance(message, AssistantMessage):
            found.append(Problem(path, "the first turn must be a user turn"))
        started = True
        if isinstance(message, AssistantMessage):
            n = len(message.tool_calls) + len(message.invalid_tool_calls)
            content = message.content
            if not n and content == ():
                found.append(Problem(f"{path}.content", "a model turn needs a part"))
            for j, call in enumerate(message.tool_calls):
                ids.add(call.id)
                if signed_model and j == 0 and not _has_signature(call.extras):
                    found.append(Problem(f"{path}.tool_calls[0]", _UNSIGNED, severity="warning"))
            ids.update(call.id for call in message.invalid_tool_calls if call.id)
            # Gemini joins consecutive model contents into one turn.
            if isinstance(previous, AssistantMessage):
                expected += n
            else:
                expected, calls_at = n, i
        elif isinstance(message, ToolMessage):
            if expected:
                expected -= 1
            else:
                found.append(Problem(path, "a function result must follow a function call turn"))
            if message.tool_call_id not in ids and not _result_name(message):
                rule = "answers no function call, so the result has no name"
                found.append(Problem(f"{path}.tool_call_id", rule))
            _parts(message.content, path, found)
        elif isinstance(message, UserMessage):
            _parts(message.content, path, found)
        previous = message
    if expected and isinstance(previous, ToolMessage):
        found.append(_count(calls_at))
    if not started:
        found.append(Problem("$.messages", "contents must not be empty"))


def _count(index: int) -> Problem:
    rule = "the number of function results must equal the number of function calls"
    return Problem(f"$.messages[{index}].tool_calls", rule)


def _parts(content: object, path: str, found: list[Problem]) -> None:
    if isinstance(content, str) or not isinstance(content, tuple):
        return
    for j, part in enumerate(content):
        where = f"{path}.content[{j}]"
        if isinstance(part, TextPart) and not part.text:
            found.append(Problem(f"{where}.text", "empty text part", severity="warning"))
        elif (
            isinstance(part, ImagePart | AudioPart | FilePart)
            and part.data is None
            and part.url is not None
            and not part.url.startswith("data:")
            and part.media_type is None
        ):
            rule = "a file by URL (fileData) needs its media type"
            found.append(Problem(f"{where}.media_type", rule))


def _tools(request: Request, found: list[Problem]) -> None:
    names: set[str] = set()
    for i, tool in enumerate(request.tools):
        if not isinstance(tool, ToolDefinition):
            continue
        path = f"$.tools[{i}].name"
        if tool.name in names:
            found.append(Problem(path, "function names must be unique"))
        elif tool.name[:1].isdigit():
            found.append(Problem(path, "must start with a letter or an underscore"))
        names.add(tool.name)
        found.extend(
            Problem(f"$.tools[{i}]{problem.path[1:]}", problem.rule, severity=problem.severity)
            for problem in tool.problems(NAME)
        )
    choice = request.tool_choice
    if choice is None:
        return
    if not request.tools and choice.mode in ("required", "tool"):
        found.append(Problem("$.tool_choice", "a function calling mode needs tools"))
    elif choice.mode == "tool" and choice.name not in names:
        found.append(Problem("$.tool_choice.name", "must name a declared function"))


def _sampling(request: Request, found: list[Problem]) -> None:
    if request.temperature is not None and not 0 <= request.temperature <= 2:
        found.append(Problem("$.temperature", "must be between 0 and 2"))
    if request.top_p is not None and not 0 <= request.top_p <= 1:
        found.append(Problem("$.top_p", "must be between 0 and 1"))
    if request.max_tokens is not None and request.max_tokens < 1:
        found.append(Problem("$.max_tokens", "must be at least 1"))
    if request.stop is not None and len(request.stop) > STOP_LIMIT:
        found.append(Problem("$.stop", f"at most {STOP_LIMIT} stop sequences"))


def check_request(request: Request) -> list[Problem]:
    """Return the problems Gemini would refuse ``request`` for.

    Rules: the conversation is not empty and starts with a user turn; the
    function results that follow a model turn (consecutive model contents
    are one turn) are exactly as many as its calls, and each answers a known
    call (else it has no ``name``); no model turn without parts; a file by
    URL has a media type; function names are unique and start with a letter
    or an underscore; a forced function is declared and tools are given;
    sampling values are in range and there are at most 5 stop sequences;
    no thinking setting for a model that does not think (Gemini 1.x, 2.0
    Flash).
    Warnings: instructions after the conversation began, empty text parts,
    gemini-3 function calls without their ``thoughtSignature``.

    Examples
    --------
    >>> from chatcodec import Request, assistant, user
    >>> from chatcodec.providers import gemini
    >>> [str(problem) for problem in gemini.check_request(Request((assistant("Hi"), user("Hi"))))]
    ['error: the first turn must be a user turn - at `$.messages[0]`']
    """
    found: list[Problem] = []
    _messages(request, found)
    _tools(request, found)
    _sampling(request, found)
    found.extend(profile_problems(NAME, request))
    return found
