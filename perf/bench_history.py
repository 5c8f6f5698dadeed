"""Reading a history right after writing it: the cost per step must not grow.

Each step adds one message to a :class:`~chatcodec.Conversation`, then reads
its length, its last message by index and ``last``, as an agent loop does.
The history already holds 10k, 100k or 1M messages; timings are per step
(pyperf ``inner_loops``), so ``1m / 10k`` near 1 means reads after writes cost
O(1). The peer is a plain list under a lock, the least such a history can
cost.

Not part of ``perf/run.py``: building the 1M-message histories takes a few
seconds in every worker.

Usage: python perf/bench_history.py -o perf/results/history.json
"""

from __future__ import annotations

import threading
from time import perf_counter
from typing import Any

import pyperf

import chatcodec as cc

SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
MESSAGE = cc.user("next")


class LockedList:
    """The peer: a list behind a lock, read without a snapshot."""

    def __init__(self, items: list[Any]) -> None:
        self.lock = threading.Lock()
        self.items = list(items)

    def add(self, item: Any) -> None:
        with self.lock:
            self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Any:
        return self.items[index]

    @property
    def last(self) -> Any:
        return self.items[-1] if self.items else None


def conversation(n: int) -> Any:
    conv = cc.Conversation(policy="lenient")
    conv.extend([MESSAGE] * n)
    return conv


def locked_list(n: int) -> Any:
    return LockedList([MESSAGE] * n)


BUILDERS = {"chatcodec": conversation, "locked-list": locked_list}
_BUILT: dict[tuple[str, int], Any] = {}


def step(history: Any) -> None:
    history.add(MESSAGE)
    if len(history) == 0 or history[-1] is not MESSAGE or history.last is not MESSAGE:
        raise SystemExit("a read after a write did not see the write")


def check() -> None:
    for build in BUILDERS.values():
        history = build(3)
        step(history)
        if len(history) != 4:
            raise SystemExit(f"{build.__name__} lost a message")


def timer(name: str, n: int) -> Any:
    def time(loops: int) -> float:
        history = _BUILT.get((name, n))
        if history is None:  # built once per worker, outside the timing
            history = _BUILT[name, n] = BUILDERS[name](n)
        start = perf_counter()
        for _ in range(loops):
            step(history)
        return perf_counter() - start

    return time


def main() -> None:
    check()
    runner = pyperf.Runner()
    runner.metadata["description"] = "Per-step cost of adding a message and reading the history"
    for size, n in SIZES.items():
        for name in BUILDERS:
            runner.bench_time_func(f"history/{size}/{name}", timer(name, n), inner_loops=1)


if __name__ == "__main__":
    main()
