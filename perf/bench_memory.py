"""Memory: the size of each message object, and what a decoded transcript holds.

Not a pyperf script: sizes are counted, not timed.

- ``sizes``: ``sys.getsizeof`` of one object of each canonical class, taken
  from the decoded transcript.  ``object`` is the object alone (the goal);
  ``tree`` adds what it owns other than text: tuples of tool calls, their
  ``msgspec.Raw`` arguments and any dicts.  Strings and bytes are left out.
- ``decoded_bytes_per_message``: what tracemalloc sees allocated by one decode
  of the 20-message transcript, per message, for each implementation, text
  included.  chatcodec's ``Raw`` arguments are views of the input, which they
  keep alive; the input is allocated before tracing starts and not counted.

Usage: python perf/bench_memory.py -o perf/results/memory.json
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

import chatcodec
from chatcodec import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from scenarios import DECODERS, TRANSCRIPT

GOAL_BYTES = 64
ROUNDS = 5


def object_size(obj: object) -> int:
    # msgspec 0.22's Raw.__sizeof__ returns a wrong, huge number; a Raw is a
    # fixed-size header that points into the input, so its basic size is right.
    if isinstance(obj, msgspec.Raw):
        return msgspec.Raw.__basicsize__
    return sys.getsizeof(obj)


def tree_size(obj: object) -> int:
    """The object and everything it owns, except text and shared constants."""
    if obj is None or isinstance(obj, str | bytes | bool | int | float):
        return 0
    if isinstance(obj, tuple) and not obj:  # the one shared empty tuple
        return 0
    size = object_size(obj)
    if isinstance(obj, msgspec.Struct):
        children: Any = [getattr(obj, name) for name in obj.__struct_fields__]
    elif isinstance(obj, tuple | list):
        children = obj
    elif isinstance(obj, dict):
        children = [*obj.keys(), *obj.values()]
    else:
        children = []
    return size + sum(tree_size(child) for child in children)


def sizes(messages: list[chatcodec.Message]) -> dict[str, dict[str, int]]:
    def first(cls: type[Any], where: Callable[[Any], bool] = lambda _: True) -> Any:
        return next(m for m in messages if isinstance(m, cls) and where(m))

    assistant = first(AssistantMessage, lambda m: len(m.tool_calls) == 2)
    samples: dict[str, object] = {
        "SystemMessage": first(SystemMessage),
        "UserMessage": first(UserMessage),
        "AssistantMessage (text)": first(AssistantMessage, lambda m: not m.tool_calls),
        "AssistantMessage (2 tool calls)": assistant,
        "ToolMessage": first(ToolMessage),
        "ToolCall": assistant.tool_calls[0],
    }
    return {
        name: {"object": object_size(obj), "tree": tree_size(obj)} for name, obj in samples.items()
    }


def traced_bytes(decode: Callable[[bytes], object], data: bytes) -> int:
    """The fewest bytes one decode left allocated, over a few rounds."""
    decode(data)  # build decoders and caches before measuring
    amounts = []
    for _ in range(ROUNDS):
        gc.collect()
        tracemalloc.start()
        result = decode(data)
        amounts.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()
        del result
    return min(amounts)


def measure() -> dict[str, Any]:
    messages = chatcodec.decode(TRANSCRIPT, type=list[chatcodec.Message])
    count = len(messages)
    per_message = {
        name: round(traced_bytes(decode, TRANSCRIPT) / count)
        for name, decode in DECODERS.items()
        if name != "chatcodec-ordered"  # the same objects as chatcodec
    }
    return {
        "python": platform.python_version(),
        "goal_bytes": GOAL_BYTES,
        "sizes": sizes(messages),
        "messages": count,
        "decoded_bytes_per_message": per_message,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    results = measure()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    for name, size in results["sizes"].items():
        print(f"{name}: {size['object']} bytes ({size['tree']} with what it owns)")
    for name, size in results["decoded_bytes_per_message"].items():
        print(f"decode/{name}: {size} bytes per message")


if __name__ == "__main__":
    main()
