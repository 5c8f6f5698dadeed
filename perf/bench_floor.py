"""The floor under construction-time rules on msgspec: what a rule costs before it checks.

msgspec runs ``__post_init__`` as an ordinary Python call; looking inside a
``msgspec.Raw`` from Python means copying it out with ``bytes()``.  These three
timers measure those costs alone, so the construction goals can be read
against them: ``empty-post-init / plain`` is the least any rule can add.

Usage: python perf/bench_floor.py -o perf/results/floor.json
"""

from __future__ import annotations

from time import perf_counter

import msgspec
import pyperf

from peers import PlainUserMessage
from scenarios import USER_TEXT


class WithEmptyPostInit(PlainUserMessage, frozen=True, tag="user-hooked"):
    def __post_init__(self) -> None:
        pass


RAW = msgspec.Raw(b'{"city":"Paris","unit":"C"}')


def plain(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        PlainUserMessage(text)
    return perf_counter() - start


def empty_post_init(loops: int) -> float:
    text = USER_TEXT
    start = perf_counter()
    for _ in range(loops):
        WithEmptyPostInit(text)
    return perf_counter() - start


def raw_bytes(loops: int) -> float:
    raw = RAW
    start = perf_counter()
    for _ in range(loops):
        bytes(raw)
    return perf_counter() - start


def main() -> None:
    assert WithEmptyPostInit(USER_TEXT).content == PlainUserMessage(USER_TEXT).content
    assert bytes(RAW) == b'{"city":"Paris","unit":"C"}'
    runner = pyperf.Runner()
    runner.metadata["description"] = "The cost of a __post_init__ call, and of bytes() on a Raw"
    runner.bench_time_func("floor/struct/plain", plain)
    runner.bench_time_func("floor/struct/empty-post-init", empty_post_init)
    runner.bench_time_func("floor/raw/bytes", raw_bytes)


if __name__ == "__main__":
    main()
