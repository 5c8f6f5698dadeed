"""Converting recorded OpenAI requests, small to large, against a Rust and a Python converter.

Three requests recorded from real traffic (``data/convert/``, sources in
``data/README.md``): ``small`` (2 messages, 0.7 KB), ``medium`` (10 messages with
tool calls and reasoning, 3.9 KB) and ``large`` (4 messages, 132 KB, its weight
an image a tool returned). Each is converted from OpenAI Chat to Anthropic
Messages (and the medium one to Gemini) by:

- ``chatcodec``: ``convert(body, source="openai", target=...)``, bytes in and out;
- ``linguafranca``: martian-linguafranca's Rust core,
  ``convert_request_json_str``, text in and out (its Python wrapper adds a
  ``json`` round trip on each side; the core is the fair peer);
- ``llm-babel``: ``registry.translate`` on the parsed body, written back with its
  own ``canonical_json``;
- ``orjson-floor``: ``orjson.dumps(orjson.loads(body))``, the least any converter
  written in Python over a C JSON library can cost.

Before timing, every converter's output is read back with chatcodec's decoder
for the target and compared as the conversation it holds: the texts by role,
each call's id, name and arguments, each result. A peer that gives another
conversation is left out of the timing and the reason is printed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import linguafranca._linguafranca as linguafranca
import orjson
from llm_transform import registry

import chatcodec as cc
from chatcodec import providers

DATA = Path(__file__).parent / "data" / "convert"
SIZES = ("small", "medium", "large")
BODIES = {size: (DATA / f"{size}.json").read_bytes() for size in SIZES}
MAX_TOKENS = 1024  # Anthropic requires it and the recorded OpenAI requests have none

# (chatcodec's name, linguafranca's, llm-babel's) for each target
TARGETS = {
    "anthropic": ("anthropic_messages", "anthropic-messages"),
    "gemini": (None, "gemini"),
}
# The cases timed: (target, size)
CASES = [("anthropic", size) for size in SIZES] + [("gemini", "medium")]

Converter = Callable[[bytes], bytes | str]
# The model a caller names for the target (Anthropic refuses another provider's).
TARGET_MODELS = {"anthropic": "claude-sonnet-4-5"}


def chatcodec_converter(target: str) -> Converter:
    def convert(body: bytes) -> bytes:
        model = TARGET_MODELS.get(target)
        return cc.convert(body, source="openai", target=target, model=model, max_tokens=MAX_TOKENS)[
            0
        ]

    return convert


def linguafranca_converter(name: str) -> Converter:
    def convert(body: bytes) -> str:
        # The core takes and gives text; a caller holding bytes decodes them first.
        out: str = linguafranca.convert_request_json_str(
            body.decode(), "openai_chat_completions", name, None
        )
        return out

    return convert


def babel_converter(name: str) -> Converter:
    def convert(body: bytes) -> str:
        out: str = registry.canonical_json(
            registry.translate("openai-chat", name, json.loads(body), model="m")
        )
        return out

    return convert


def orjson_floor(body: bytes) -> bytes:
    return orjson.dumps(orjson.loads(body))


def converters(target: str) -> dict[str, Converter]:
    """Every converter for a target, chatcodec first, the floor last."""
    ours, theirs = TARGETS[target]
    out: dict[str, Converter] = {"chatcodec": chatcodec_converter(target)}
    if ours is not None:
        out["linguafranca"] = linguafranca_converter(ours)
    out["llm-babel"] = babel_converter(theirs)
    out["orjson-floor"] = orjson_floor
    return out


def conversation(target: str, body: bytes | str) -> list[tuple[Any, ...]]:
    """What a converted request says, in the terms every converter shares."""
    data = body.encode() if isinstance(body, str) else body
    if target == "anthropic" and data.startswith(b'{"value"'):  # linguafranca's envelope
        data = json.dumps(json.loads(data)["value"]).encode()
    request = providers.get(target).decode_request(data)
    # Gemini carries no call ids: a reader derives them, each converter its own way.
    ids = target != "gemini"
    out: list[tuple[Any, ...]] = []
    for message in request.messages:
        if isinstance(message, cc.SystemMessage | cc.DeveloperMessage):
            out.append(("system", message.content))
        elif isinstance(message, cc.UserMessage):
            out.append(("user", message.text))
        elif isinstance(message, cc.AssistantMessage):
            if message.text:
                out.append(("assistant", message.text))
            for c in message.tool_calls:
                out.append(("call", c.id if ids else None, c.name, c.arguments_dict()))
        else:
            out.append(("result", message.tool_call_id if ids else None, message.text))
    return out


def checked(target: str, size: str) -> tuple[dict[str, Converter], dict[str, str]]:
    """The converters that give chatcodec's conversation, and why the others are left out.

    The floor converts nothing and is not compared.
    """
    body = BODIES[size]
    candidates = converters(target)
    want = conversation(target, candidates["chatcodec"](body))
    if not want:
        raise SystemExit(f"chatcodec's {target} request for {size} holds no conversation")
    kept: dict[str, Converter] = {}
    left_out: dict[str, str] = {}
    for name, convert in candidates.items():
        if name == "orjson-floor":
            if orjson.loads(convert(body)) != orjson.loads(body):
                raise SystemExit("the orjson floor changed the body")
            kept[name] = convert
            continue
        try:
            got = conversation(target, convert(body))
        except Exception as exc:  # a peer's failure is recorded, not fatal
            left_out[name] = f"its output does not decode as {target}: {type(exc).__name__}"
            continue
        if got != want:
            left_out[name] = "its output holds another conversation"
            continue
        kept[name] = convert
    return kept, left_out
