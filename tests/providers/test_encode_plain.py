"""The Anthropic and Gemini request encoders' one-pass paths for records without extras.

Each encoder writes a message, tool call or tool without extras in one pass,
inline; a record with extras (even empty ones of the target) takes the general
path. Both must write the same bytes and report the same losses, on every real
request of every family.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from corpus import corpus, curated, needs_corpus

import chatcodec as cc
from chatcodec import providers

TARGETS = ("anthropic", "gemini")


def requests() -> list[Any]:
    out = []
    for codec in providers.NAMES:
        out += [
            pytest.param(codec, param.values[0], id=f"curated:{codec}:{param.id}")
            for param in curated(codec, "request")
        ]
        out += [
            pytest.param(codec, param.values[0], id=f"{codec}:{param.id}")
            for param in corpus(codec, "request")
        ]
    return out


def _marked(record: Any, target: str) -> Any:
    """``record`` with extras that say nothing: the encoder's general path writes it."""
    if record.extras:
        return record
    return msgspec.structs.replace(record, extras={target: {}})


def general(request: cc.Request, target: str) -> cc.Request:
    """``request`` with every message, tool call and tool marked (see :func:`_marked`)."""
    messages = []
    for message in request.messages:
        if isinstance(message, cc.AssistantMessage) and message.tool_calls:
            calls = tuple(_marked(call, target) for call in message.tool_calls)
            message = msgspec.structs.replace(message, tool_calls=calls)
        messages.append(_marked(message, target))
    tools = tuple(
        _marked(tool, target) if isinstance(tool, cc.ToolDefinition) else tool
        for tool in request.tools
    )
    return msgspec.structs.replace(request, messages=tuple(messages), tools=tools)


def encode(request: cc.Request, target: str) -> tuple[bytes | type[Exception], list[str]]:
    losses: list[cc.Loss] = []
    try:
        out: bytes | type[Exception] = providers.get(target).encode_request(request, losses=losses)
    except (ValueError, TypeError) as exc:
        out = type(exc)
    return out, [str(loss) for loss in losses]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("source", "path"), needs_corpus(requests(), width=2))
def test_plain_paths_write_what_the_general_path_writes(
    source: str, path: Path, target: str
) -> None:
    request = providers.get(source).decode_request(path.read_bytes())
    assert encode(request, target) == encode(general(request, target), target)


def test_the_plain_paths_are_taken() -> None:
    """The marked request really takes another path: its messages are not plain."""
    request = cc.Request(
        (
            cc.system("Be brief."),
            cc.user("Weather in Paris?"),
            cc.assistant(tool_calls=[cc.tool_call("c1", "get_weather", {"city": "Paris"})]),
            cc.tool_result("c1", '{"sky":"clear"}'),
            cc.assistant("Clear."),
        ),
        tools=(cc.ToolDefinition("get_weather", "Weather.", {"type": "object"}, strict=False),),
        max_tokens=10,
    )
    for target in TARGETS:
        marked = general(request, target)
        assert all(message.extras for message in marked.messages)
        assert encode(request, target) == encode(marked, target)
