"""Preflight rules: what Cohere's ``/v2/chat`` refuses with a 400 or a 422.

Each rule names the canonical path of the offending value. ``error``: the API
refuses it (a missing model or history, a model another family serves, a
forced tool choice without tools, a tool without a parameters schema,
sampling settings out of their documented ranges, more than five stop
sequences); ``warning``: what the encoder would leave out (audio and file
parts, images in a tool result, a tool error flag).
"""

from __future__ import annotations

from ..._content import AudioPart, FilePart, ImagePart, OpaquePart
from ..._exchange import Request
from ..._loss import a
from ..._messages import AssistantMessage, ToolMessage, UserMessage
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._models import foreign_model
from ._common import NAME

__all__ = ["check_request"]

# The documented ranges of the sampling settings, by canonical field.
_RANGES = (
    ("temperature", 0.0, None),
    ("top_p", 0.01, 0.99),
    ("top_k", 0, 500),
    ("frequency_penalty", 0.0, 1.0),
    ("presence_penalty", 0.0, 1.0),
)
_MAX_STOP = 5


def check_request(request: Request) -> list[Problem]:
    found: list[Problem] = []
    if not request.model:
        found.append(Problem("$.model", "model is required"))
    else:
        foreign = foreign_model(request.model, NAME)
        if foreign is not None:
            found.append(Problem("$.model", foreign))
    if not request.messages:
        found.append(Problem("$.messages", "messages must hold at least one message"))
    for field, low, high in _RANGES:
        value = getattr(request, field)
        if value is not None and (value < low or (high is not None and value > high)):
            bound = f"from {low} to {high}" if high is not None else f"at least {low}"
            found.append(Problem(f"$.{field}", f"must be {bound}"))
    if request.stop is not None and len(request.stop) > _MAX_STOP:
        found.append(Problem("$.stop", f"cohere takes at most {_MAX_STOP} stop sequences"))
    choice = request.tool_choice
    if choice is not None and choice.mode in ("required", "tool") and not request.tools:
        found.append(Problem("$.tool_choice", "a required tool call needs tools"))
    for k, tool in enumerate(request.tools):
        if isinstance(tool, ToolDefinition) and tool.parameters is None:
            found.append(Problem(f"$.tools[{k}].parameters", "a tool needs a parameters schema"))
    _check_messages(request, found)
    return found


def _check_messages(request: Request, found: list[Problem]) -> None:
    ids: set[str] = set()
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        if isinstance(message, AssistantMessage):
            ids.update(call.id for call in message.tool_calls)
            ids.update(bad.id for bad in message.invalid_tool_calls if bad.id is not None)
        elif isinstance(message, UserMessage | ToolMessage):
            tool = isinstance(message, ToolMessage)
            if tool and message.tool_call_id not in ids:  # type: ignore[union-attr]
                rule = "answers no earlier tool call"
                found.append(Problem(path + ".tool_call_id", rule, "warning"))
            if tool and message.is_error:  # type: ignore[union-attr]
                found.append(
                    Problem(path + ".is_error", "cohere has no tool error flag", "warning")
                )
            if isinstance(message.content, tuple):
                for k, part in enumerate(message.content):
                    dropped = isinstance(part, AudioPart | FilePart) or (
                        isinstance(part, OpaquePart) and part.provider != NAME
                    )
                    if dropped or (tool and isinstance(part, ImagePart)):
                        kind = type(part).__struct_config__.tag
                        rule = f"{a(str(kind))} part cannot be sent; it is dropped"
                        found.append(Problem(f"{path}.content[{k}]", rule, "warning"))
