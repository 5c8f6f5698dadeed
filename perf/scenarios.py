"""What each benchmark computes, and the checks that every implementation agrees.

The bench scripts time these cases after running the checks; the tests run the
same checks without timing anything.  A peer that does less work than
chatcodec, or different work, fails a check instead of looking fast.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pydantic

import chatcodec
from chatcodec import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from peers import (
    PLAIN_DECODER,
    PLAIN_ENCODER,
    PYDANTIC_MESSAGES,
    HookedAssistantMessage,
    HookedToolCall,
    HookedUserMessage,
    PlainAssistantMessage,
    PlainToolCall,
    PlainUserMessage,
    PydanticAssistantMessage,
    PydanticToolCall,
    PydanticToolMessage,
    PydanticUserMessage,
    json_values,
)

TRANSCRIPT = (Path(__file__).parent / "data" / "transcript_20.json").read_bytes()
MESSAGE_LIST = list[Message]


class CheckFailed(Exception):
    """An implementation does not compute what chatcodec computes."""


def same_answer(answers: Mapping[str, object], expected: object = None) -> None:
    """Raise unless every answer holds the same JSON values as ``expected``.

    ``expected`` defaults to chatcodec's answer.
    """
    want = json_values(answers["chatcodec"] if expected is None else expected)
    for name, answer in answers.items():
        if json_values(answer) != want:
            raise CheckFailed(f"{name} does not compute the same answer as chatcodec")


# -- construct/user --------------------------------------------------------------

USER_TEXT = "What will the weather be like in Paris on Saturday?"

BUILD_USER: dict[str, Callable[[str], object]] = {
    "chatcodec": lambda text: UserMessage(text),
    "msgspec-plain": lambda text: PlainUserMessage(text),
    "empty-post-init": lambda text: HookedUserMessage(text),
    "pydantic": lambda text: PydanticUserMessage(role="user", content=text),
    "dict": lambda text: {"role": "user", "content": text},
}


def check_construct_user() -> None:
    same_answer({name: build(USER_TEXT) for name, build in BUILD_USER.items()})


# -- construct/assistant -----------------------------------------------------------

Call = tuple[str, str, Any]


def _calls(prepare: Callable[[bytes], Any]) -> tuple[Call, Call]:
    """The two parallel calls of the transcript's message 6, arguments prepared."""
    first, second = orjson.loads(TRANSCRIPT)[6]["tool_calls"]
    return (
        (first["id"], first["name"], prepare(orjson.dumps(first["arguments"]))),
        (second["id"], second["name"], prepare(orjson.dumps(second["arguments"]))),
    )


# Arguments as each implementation holds them, made before any timing.
CALLS: dict[str, tuple[Call, Call]] = {
    "chatcodec": _calls(msgspec.Raw),
    "msgspec-plain": _calls(msgspec.Raw),
    "empty-post-init": _calls(msgspec.Raw),
    "pydantic": _calls(bytes),
    "dict": _calls(orjson.loads),
}

BUILD_ASSISTANT: dict[str, Callable[[Call, Call], object]] = {
    "chatcodec": lambda c1, c2: AssistantMessage(None, (ToolCall(*c1), ToolCall(*c2))),
    "msgspec-plain": lambda c1, c2: PlainAssistantMessage(
        None, (PlainToolCall(*c1), PlainToolCall(*c2))
    ),
    "empty-post-init": lambda c1, c2: HookedAssistantMessage(
        None, (HookedToolCall(*c1), HookedToolCall(*c2))
    ),
    "pydantic": lambda c1, c2: PydanticAssistantMessage(
        role="assistant",
        tool_calls=(
            PydanticToolCall(id=c1[0], name=c1[1], arguments=c1[2]),
            PydanticToolCall(id=c2[0], name=c2[1], arguments=c2[2]),
        ),
    ),
    "dict": lambda c1, c2: {
        "role": "assistant",
        "tool_calls": [
            {"id": c1[0], "name": c1[1], "arguments": c1[2]},
            {"id": c2[0], "name": c2[1], "arguments": c2[2]},
        ],
    },
}


def check_construct_assistant() -> None:
    same_answer({name: build(*CALLS[name]) for name, build in BUILD_ASSISTANT.items()})


# -- decode ------------------------------------------------------------------------


def _decode_ordered(data: bytes) -> list[Message]:
    messages = chatcodec.decode(data, type=MESSAGE_LIST)
    chatcodec.validate(messages, policy="strict")
    return messages


DECODERS: dict[str, Callable[[bytes], object]] = {
    "chatcodec": functools.partial(chatcodec.decode, type=MESSAGE_LIST),
    # The same, plus the ordering rules of a whole history (not part of the goal).
    "chatcodec-ordered": _decode_ordered,
    "msgspec-plain": PLAIN_DECODER.decode,
    "orjson": orjson.loads,
    "pydantic": PYDANTIC_MESSAGES.validate_json,
}


def check_decode() -> None:
    decoded = {name: decode(TRANSCRIPT) for name, decode in DECODERS.items()}
    same_answer(decoded, expected=orjson.loads(TRANSCRIPT))


# -- encode ------------------------------------------------------------------------

# Each encoder with the 20 messages as its implementation decoded them.
ENCODERS: dict[str, tuple[Callable[[Any], bytes], object]] = {
    "chatcodec": (chatcodec.encode, chatcodec.decode(TRANSCRIPT, type=MESSAGE_LIST)),
    "msgspec-plain": (PLAIN_ENCODER.encode, PLAIN_DECODER.decode(TRANSCRIPT)),
    "orjson": (orjson.dumps, orjson.loads(TRANSCRIPT)),
    "pydantic": (
        functools.partial(PYDANTIC_MESSAGES.dump_json, exclude_defaults=True),
        PYDANTIC_MESSAGES.validate_json(TRANSCRIPT),
    ),
}


def check_encode() -> None:
    encoded = {name: orjson.loads(encode(value)) for name, (encode, value) in ENCODERS.items()}
    same_answer(encoded, expected=orjson.loads(TRANSCRIPT))


# -- refusals -----------------------------------------------------------------------

_ID, _NAME, _ARGUMENTS = CALLS["pydantic"][0]

# Invalid values built in code: (chatcodec, pydantic); both must refuse.
REFUSED_BUILDS: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
    "empty user content": (
        lambda: UserMessage(""),
        lambda: PydanticUserMessage(role="user", content=""),
    ),
    "empty tool call id": (
        lambda: ToolCall("", "get_weather", msgspec.Raw(b"{}")),
        lambda: PydanticToolCall(id="", name="get_weather", arguments=b"{}"),
    ),
    "empty tool name": (
        lambda: ToolCall("call_1", "", msgspec.Raw(b"{}")),
        lambda: PydanticToolCall(id="call_1", name="", arguments=b"{}"),
    ),
    "arguments an array": (
        lambda: ToolCall("call_1", "get_weather", msgspec.Raw(b'["Paris"]')),
        lambda: PydanticToolCall(id="call_1", name="get_weather", arguments=b'["Paris"]'),
    ),
    "arguments a string": (
        lambda: ToolCall("call_1", "get_weather", msgspec.Raw(b'"Paris"')),
        lambda: PydanticToolCall(id="call_1", name="get_weather", arguments=b'"Paris"'),
    ),
    "assistant without content or tool calls": (
        lambda: AssistantMessage(),
        lambda: PydanticAssistantMessage(role="assistant"),
    ),
    "duplicate tool call ids": (
        lambda: AssistantMessage(
            None, (ToolCall(*CALLS["chatcodec"][0]), ToolCall(*CALLS["chatcodec"][0]))
        ),
        lambda: PydanticAssistantMessage(
            role="assistant",
            tool_calls=(
                PydanticToolCall(id=_ID, name=_NAME, arguments=_ARGUMENTS),
                PydanticToolCall(id=_ID, name=_NAME, arguments=_ARGUMENTS),
            ),
        ),
    ),
    "empty tool_call_id": (
        lambda: ToolMessage("", "{}"),
        lambda: PydanticToolMessage(role="tool", tool_call_id="", content="{}"),
    ),
}


def _broken(change: Callable[[list[Any]], None]) -> bytes:
    messages = orjson.loads(TRANSCRIPT)
    change(messages)
    return orjson.dumps(messages)


def _set(index: int, path: tuple[str | int, ...], value: object) -> Callable[[list[Any]], None]:
    def change(messages: list[Any]) -> None:
        target = messages[index]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


_FIRST_CALL_ID = orjson.loads(TRANSCRIPT)[6]["tool_calls"][0]["id"]

# The transcript with one rule broken; both decoders must refuse it.
REFUSED_DOCUMENTS: dict[str, bytes] = {
    "empty user content": _broken(_set(1, ("content",), "")),
    "empty system content": _broken(_set(0, ("content",), "")),
    "empty tool call id": _broken(_set(2, ("tool_calls", 0, "id"), "")),
    "empty tool name": _broken(_set(2, ("tool_calls", 0, "name"), "")),
    "arguments JSON text": _broken(_set(2, ("tool_calls", 0, "arguments"), '{"city":"Paris"}')),
    "arguments an array": _broken(_set(2, ("tool_calls", 0, "arguments"), ["Paris"])),
    "duplicate tool call ids": _broken(_set(6, ("tool_calls", 1, "id"), _FIRST_CALL_ID)),
    "assistant without content or tool calls": _broken(_set(4, ("content",), None)),
    "empty tool_call_id": _broken(_set(3, ("tool_call_id",), "")),
}


def check_refusals() -> None:
    for case, (build, build_pydantic) in REFUSED_BUILDS.items():
        _refused(case, "chatcodec", build, chatcodec.ValidationError)
        _refused(case, "pydantic", build_pydantic, pydantic.ValidationError)
    for case, data in REFUSED_DOCUMENTS.items():
        _refused(
            case,
            "chatcodec",
            functools.partial(chatcodec.decode, data, type=MESSAGE_LIST),
            chatcodec.ValidationError,
        )
        _refused(
            case,
            "pydantic",
            functools.partial(PYDANTIC_MESSAGES.validate_json, data),
            pydantic.ValidationError,
        )


def _refused(case: str, name: str, make: Callable[[], object], error: type[Exception]) -> None:
    try:
        make()
    except error:
        return
    raise CheckFailed(f"{name} accepts an invalid value: {case}")


CHECKS: dict[str, Callable[[], None]] = {
    "construct/user": check_construct_user,
    "construct/assistant": check_construct_assistant,
    "decode/transcript20": check_decode,
    "encode/transcript20": check_encode,
    "refusals": check_refusals,
}
