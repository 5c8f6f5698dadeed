"""Building messages in code: a user message, and an assistant message with two calls.

Each timer repeats the construction inline, as a caller writes it, so no extra
function call is timed.  The last object each timer builds is kept, and the
check before timing compares those objects across implementations.

Usage: python perf/bench_construct.py -o perf/results/construct.json
"""

from __future__ import annotations

from time import perf_counter

import pyperf

from chatcodec import AssistantMessage, ToolCall, UserMessage, user
from peers import (
    HookedAssistantMessage,
    HookedToolCall,
    HookedUserMessage,
    PlainAssistantMessage,
    PlainToolCall,
    PlainUserMessage,
    PydanticAssistantMessage,
    PydanticToolCall,
    PydanticUserMessage,
)
from scenarios import CALLS, USER_TEXT, check_refusals, same_answer

built: dict[str, object] = {}


def user_chatcodec(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = UserMessage(text)
    elapsed = perf_counter() - start
    built["construct/user/chatcodec"] = message
    return elapsed


def user_plain(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = PlainUserMessage(text)
    elapsed = perf_counter() - start
    built["construct/user/msgspec-plain"] = message
    return elapsed


def user_hooked(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = HookedUserMessage(text)
    elapsed = perf_counter() - start
    built["construct/user/empty-post-init"] = message
    return elapsed


def factory_chatcodec(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = user(text)
    elapsed = perf_counter() - start
    built["construct/user-factory/chatcodec"] = message
    return elapsed


def factory_class(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = UserMessage(text)
    elapsed = perf_counter() - start
    built["construct/user-factory/UserMessage"] = message
    return elapsed


def user_pydantic(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = PydanticUserMessage(role="user", content=text)
    elapsed = perf_counter() - start
    built["construct/user/pydantic"] = message
    return elapsed


def user_dict(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        message = {"role": "user", "content": text}
    elapsed = perf_counter() - start
    built["construct/user/dict"] = message
    return elapsed


def assistant_chatcodec(loops: int) -> float:
    (id1, name1, args1), (id2, name2, args2) = CALLS["chatcodec"]
    start = perf_counter()
    for _ in range(loops):
        message = AssistantMessage(None, (ToolCall(id1, name1, args1), ToolCall(id2, name2, args2)))
    elapsed = perf_counter() - start
    built["construct/assistant/chatcodec"] = message
    return elapsed


def assistant_plain(loops: int) -> float:
    (id1, name1, args1), (id2, name2, args2) = CALLS["msgspec-plain"]
    start = perf_counter()
    for _ in range(loops):
        message = PlainAssistantMessage(
            None, (PlainToolCall(id1, name1, args1), PlainToolCall(id2, name2, args2))
        )
    elapsed = perf_counter() - start
    built["construct/assistant/msgspec-plain"] = message
    return elapsed


def assistant_hooked(loops: int) -> float:
    """Three Structs with empty hooks, plus the argument check's floor: a Raw's bytes."""
    (id1, name1, args1), (id2, name2, args2) = CALLS["empty-post-init"]
    start = perf_counter()
    for _ in range(loops):
        bytes(args1)
        bytes(args2)
        message = HookedAssistantMessage(
            None, (HookedToolCall(id1, name1, args1), HookedToolCall(id2, name2, args2))
        )
    elapsed = perf_counter() - start
    built["construct/assistant/empty-post-init"] = message
    return elapsed


def assistant_pydantic(loops: int) -> float:
    (id1, name1, args1), (id2, name2, args2) = CALLS["pydantic"]
    start = perf_counter()
    for _ in range(loops):
        message = PydanticAssistantMessage(
            role="assistant",
            tool_calls=(
                PydanticToolCall(id=id1, name=name1, arguments=args1),
                PydanticToolCall(id=id2, name=name2, arguments=args2),
            ),
        )
    elapsed = perf_counter() - start
    built["construct/assistant/pydantic"] = message
    return elapsed


def assistant_dict(loops: int) -> float:
    (id1, name1, args1), (id2, name2, args2) = CALLS["dict"]
    start = perf_counter()
    for _ in range(loops):
        message = {
            "role": "assistant",
            "tool_calls": [
                {"id": id1, "name": name1, "arguments": args1},
                {"id": id2, "name": name2, "arguments": args2},
            ],
        }
    elapsed = perf_counter() - start
    built["construct/assistant/dict"] = message
    return elapsed


TIMERS = {
    "construct/user/chatcodec": user_chatcodec,
    "construct/user/msgspec-plain": user_plain,
    "construct/user/empty-post-init": user_hooked,
    "construct/user/pydantic": user_pydantic,
    "construct/user/dict": user_dict,
    "construct/assistant/chatcodec": assistant_chatcodec,
    "construct/assistant/msgspec-plain": assistant_plain,
    "construct/assistant/empty-post-init": assistant_hooked,
    "construct/assistant/pydantic": assistant_pydantic,
    "construct/assistant/dict": assistant_dict,
    "construct/user-factory/chatcodec": factory_chatcodec,
    "construct/user-factory/UserMessage": factory_class,
}


def check() -> None:
    """Run every timer once and compare what each built; the peers must refuse alike."""
    for timer in TIMERS.values():
        timer(1)
    for case in ("construct/user/", "construct/assistant/", "construct/user-factory/"):
        answers = {n.removeprefix(case): obj for n, obj in built.items() if n.startswith(case)}
        same_answer(answers)
    check_refusals()


def main() -> None:
    check()
    runner = pyperf.Runner()
    runner.metadata["description"] = "Building a user message, and an assistant one with 2 calls"
    for name, timer in TIMERS.items():
        runner.bench_time_func(name, timer)


if __name__ == "__main__":
    main()
