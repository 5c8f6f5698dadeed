"""The process-pool engine: chunks of lines converted in N processes, in input order.

Memory stays bounded: the input is cut into chunks (a few MB of lines each)
and at most two chunks per process are in flight; each result is handed
back, in input order, as soon as every chunk before it is done.
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from ._core import convert_lines
from ._result import BulkResult

__all__ = ["CHUNK_BYTES", "chunks", "run"]

CHUNK_BYTES = 4 << 20
CHUNK_LINES = 20_000


def chunks(
    records: Iterable[bytes], size: int = CHUNK_BYTES, lines: int = CHUNK_LINES
) -> Iterator[tuple[int, list[bytes]]]:
    """``(first line number, lines)`` runs of about ``size`` bytes."""
    chunk: list[bytes] = []
    held = 0
    first = 1
    for record in records:
        chunk.append(record)
        held += len(record)
        if held >= size or len(chunk) >= lines:
            yield first, chunk
            first += len(chunk)
            chunk, held = [], 0
    if chunk:
        yield first, chunk


def _work(options: dict[str, Any], first: int, lines: list[bytes]) -> BulkResult:
    return convert_lines(lines, first_line=first, **options)


def _work_joined(options: dict[str, Any], first: int, lines: list[bytes]) -> BulkResult:
    # In a worker: the records go back as one block of lines, which pickles
    # in one copy instead of one object per record.
    result = _work(options, first, lines)
    if result.records:
        result.records = [b"\n".join(result.records)]
    return result


def run(
    parts: Iterable[tuple[int, list[bytes]]], options: dict[str, Any], jobs: int
) -> Generator[BulkResult, None, None]:
    """The result of each chunk, in input order, converted in ``jobs`` processes.

    From worker processes, ``records`` holds one block of lines joined by
    newlines (what a file gets); converted here, one record per item.

    ``options`` are :func:`convert_lines`'s keyword arguments (``kind`` set,
    so that every chunk reads the records the same way). With ``jobs`` 1
    the chunks are converted here, in this process.
    """
    parts = iter(parts)
    head = list(itertools.islice(parts, 2))
    if jobs <= 1 or len(head) < 2:  # one chunk: starting processes would cost more
        for first, lines in itertools.chain(head, parts):
            yield _work(options, first, lines)
        return
    parts = itertools.chain(head, parts)
    # spawn, not fork: the caller may run a progress thread, and fork copies
    # a process with threads in an unknown state.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending: deque[Future[BulkResult]] = deque()
        try:
            for first, lines in parts:
                pending.append(pool.submit(_work_joined, options, first, lines))
                if len(pending) >= 2 * jobs:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
