"""Preflight rules: what Ollama's ``/api/chat`` answers with a 400.

Ollama validates little of a chat request by itself: the body must bind to
its Go types (so a ``keep_alive`` that is not a duration, a ``think`` that is
not a boolean or a level, image data that is not base64 or tool-call
arguments that are not an object fail), ``model`` is required and ``format``
must be ``""``, ``"json"`` or a schema object. The other rules are warnings:
what the encoder would drop, or send without the data the model needs.
"""

from __future__ import annotations

import binascii
import re
from base64 import b64decode
from typing import Any

from ..._content import AudioPart, FilePart, ImagePart, OpaquePart
from ..._exchange import Request
from ..._loss import a
from ..._messages import AssistantMessage, ToolMessage, UserMessage
from ..._paths import key_step
from ..._problems import Problem
from ..._tools import ToolDefinition
from .._profiles import profile_problems
from ._common import NAME, is_object, standard_base64

__all__ = ["check_request"]

# Go's time.ParseDuration: "0", or signed decimal numbers each with a unit.
_DURATION = re.compile(r"[-+]?(0|((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)")
_THINK_LEVELS = frozenset({"high", "medium", "low"})


def check_request(request: Request) -> list[Problem]:
    found: list[Problem] = []
    if not request.model:
        found.append(Problem("$.model", "model is required"))
    own = (request.extras or {}).get(NAME)
    if type(own) is dict:
        _check_extras(request, own, found)
    for k, tool in enumerate(request.tools):
        if isinstance(tool, ToolDefinition) and tool.parameters is not None:
            _check_schema(tool.parameters, f"$.tools[{k}].parameters", found)
    _check_messages(request, found)
    found.extend(profile_problems(NAME, request))
    return found


def _check_extras(request: Request, own: dict[str, Any], found: list[Problem]) -> None:
    path = f"$.extras.{NAME}"
    if own.get("format") is not None and request.response_format is None:
        rule = 'format must be "", "json" or a JSON schema object'
        found.append(Problem(path + ".format", rule))
    if "keep_alive" in own:
        value = own["keep_alive"]
        kind = type(value)
        if kind is str:
            ok = _DURATION.fullmatch(value) is not None
        else:
            ok = value is None or kind is int or kind is float
        if not ok:
            rule = 'keep_alive must be a number of seconds or a duration such as "5m"'
            found.append(Problem(path + ".keep_alive", rule))
    if "think" in own:
        value = own["think"]
        known = type(value) is str and value in _THINK_LEVELS  # a list is not hashable
        if not (value is None or type(value) is bool or known):
            rule = 'think must be a boolean or "high", "medium" or "low"'
            found.append(Problem(path + ".think", rule))


def _check_schema(schema: dict[str, Any], path: str, found: list[Problem]) -> None:
    """The parts of a tool's schema Ollama reads into typed fields.

    A definition's schema is frozen (dict and list subclasses): ``isinstance``.
    """
    required = schema.get("required")
    if required is not None and not (
        isinstance(required, list) and all(type(item) is str for item in required)
    ):
        found.append(Problem(path + ".required", "required must be an array of strings"))
    properties = schema.get("properties")
    if properties is None:
        return
    if not isinstance(properties, dict):
        found.append(Problem(path + ".properties", "properties must be an object"))
        return
    for key, prop in properties.items():
        if not isinstance(prop, dict):
            continue
        kind = prop.get("type")
        if kind is not None and not (
            type(kind) is str or (isinstance(kind, list) and all(type(t) is str for t in kind))
        ):
            rule = "a property's type must be a string or an array of strings"
            found.append(Problem(f"{path}.properties{key_step(key)}.type", rule))
        description = prop.get("description")
        if description is not None and type(description) is not str:
            rule = "a property's description must be a string"
            found.append(Problem(f"{path}.properties{key_step(key)}.description", rule))


def _check_messages(request: Request, found: list[Problem]) -> None:
    ids: set[str] = set()
    for i, message in enumerate(request.messages):
        path = f"$.messages[{i}]"
        if isinstance(message, AssistantMessage):
            for k, call in enumerate(message.tool_calls):
                ids.add(call.id)
                own = (call.extras or {}).get(NAME)
                if type(own) is dict and own.get("~arguments") == "string":
                    rule = "tool call arguments must be a JSON object"
                    found.append(Problem(f"{path}.tool_calls[{k}].arguments", rule))
            for k, bad in enumerate(message.invalid_tool_calls):
                if bad.id is not None:
                    ids.add(bad.id)
                own = (bad.extras or {}).get(NAME)
                form = own.get("~arguments") if type(own) is dict else None
                p = f"{path}.invalid_tool_calls[{k}].arguments"
                if form == "string" or (form == "json" and bad.arguments.strip() != "null"):
                    found.append(Problem(p, "tool call arguments must be a JSON object"))
                elif form is None and not is_object(bad.arguments):
                    rule = "arguments that are not a JSON object are sent as {}"
                    found.append(Problem(p, rule, "warning"))
        elif isinstance(message, UserMessage | ToolMessage):
            if isinstance(message.content, tuple):
                _check_parts(message.content, path, found)
            if (
                isinstance(message, ToolMessage)
                and message.tool_call_id not in ids
                and message.name is None
            ):
                own = (message.extras or {}).get(NAME)
                if not (type(own) is dict and "tool_name" in own):
                    rule = "answers no earlier tool call: no tool_name can be sent"
                    found.append(Problem(path + ".tool_call_id", rule, "warning"))


def _check_parts(parts: tuple[Any, ...], path: str, found: list[Problem]) -> None:
    for k, part in enumerate(parts):
        p = f"{path}.content[{k}]"
        if isinstance(part, ImagePart):
            data = part.data
            if data is None and part.url is not None and part.url.startswith("data:"):
                head, _, data = part.url.partition(",")
                if not head.endswith(";base64"):
                    data = None
            if data is None:
                found.append(Problem(p, "an image by URL cannot be sent; it is dropped", "warning"))
            elif not _base64(_sent(part, data)):
                found.append(Problem(p + ".data", "image data must be base64"))
        elif isinstance(part, AudioPart | OpaquePart) or (
            isinstance(part, FilePart)
            and not (part.data is not None and (part.media_type or "").startswith("image/"))
        ):
            kind = type(part).__struct_config__.tag
            found.append(
                Problem(p, f"{a(str(kind))} part cannot be sent; it is dropped", "warning")
            )


def _sent(part: ImagePart, data: str) -> str:
    """The data as the encoder sends it: repaired unless kept verbatim."""
    own = (part.extras or {}).get(NAME)
    if type(own) is dict and own.get("~data") == "verbatim":
        return data
    return standard_base64(data)


def _base64(data: str) -> bool:
    """Whether Go's standard base64 decoding takes ``data`` (it skips newlines)."""
    try:
        b64decode(data.replace("\n", "").replace("\r", ""), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True
