"""The process-pool engines: chunks of lines converted in N processes, in input order.

Memory stays bounded: the input is cut into chunks (a few MB of lines each)
and at most two chunks per process are in flight; each result is handed
back, in input order, as soon as every chunk before it is done.

Two ways to share the work. :func:`run` hands each chunk's lines to a
worker and takes its converted lines back: for stdin, compressed files and
JSON arrays, which only this process can read in order. :func:`run_ranges`
is for a plain JSONL file: this process only finds where each chunk starts
and ends (:func:`ranges`); each worker reads its own bytes of the file and
writes what it converted to a part file, which this process appends to the
output without reading it (``copy_file_range``). Reading, splitting and
writing then happen in the workers, side by side.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import msgspec

from ._core import convert_lines
from ._io import gzip_member
from ._result import BulkResult

__all__ = ["CHUNK_BYTES", "Range", "chunks", "ranges", "run", "run_ranges"]

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
    rest = itertools.chain(head, parts)
    calls = ((_work_joined, (options, first, lines), None) for first, lines in rest)
    for result, _ in _in_order(calls, jobs):
        yield result


T = TypeVar("T")


def _in_order(
    calls: Iterable[tuple[Callable[..., BulkResult], tuple[Any, ...], T]], jobs: int
) -> Generator[tuple[BulkResult, T], None, None]:
    """Each ``(function, arguments, tag)`` called in ``jobs`` processes; results in order.

    At most two calls per process are in flight: the next is submitted only
    as the oldest one's result is handed back, with its tag.
    """
    with _pool(jobs) as pool:
        pending: deque[tuple[Future[BulkResult], T]] = deque()
        try:
            for function, arguments, tag in calls:
                pending.append((pool.submit(function, *arguments), tag))
                if len(pending) >= 2 * jobs:
                    future, tag = pending.popleft()
                    yield future.result(), tag
            while pending:
                future, tag = pending.popleft()
                yield future.result(), tag
        finally:
            for future, _ in pending:
                future.cancel()


def _pool(jobs: int) -> ProcessPoolExecutor:
    # fork on Linux while this process runs one thread: the workers start at
    # once, with chatcodec imported. With another thread, spawn: fork would
    # copy that thread's locks in whatever state they are in. Elsewhere spawn,
    # each system's default (macOS's frameworks are not safe to fork).
    method = "spawn"
    if sys.platform == "linux" and threading.active_count() == 1:
        method = "fork"
    context = multiprocessing.get_context(method)
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_signals)


def _worker_signals() -> None:
    # A terminal's Ctrl-C reaches every process of the group: this process
    # stops the run and the workers finish the chunk in hand. SIGTERM ends a
    # worker (a forked one would have the parent's handler).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Range(NamedTuple):
    """A chunk of a JSONL file: its bytes ``[start, end)``, whole lines."""

    start: int
    end: int


def ranges(
    path: str | os.PathLike[str], size: int = CHUNK_BYTES, lines: int | None = None
) -> Iterator[Range]:
    """The chunks of a JSONL file: about ``size`` bytes each, whole lines.

    A chunk ends with the line its ``size``-th byte falls in. With ``lines``,
    it also ends after that many lines, which costs reading the file here;
    without, only a line's worth of bytes is read at each cut. Lines end at
    a newline byte only, as a file's lines do when iterated; the last line
    may lack it.
    """
    with open(path, "rb") as f:
        end_of_file = os.fstat(f.fileno()).st_size
        start = 0
        while start < end_of_file:
            last = min(start + size, end_of_file) - 1  # the byte whose line ends the chunk
            cut = -1
            if lines is not None:
                block = f.read(last + 1 - start)
                if block.count(b"\n") >= lines:
                    for _ in range(lines):
                        cut = block.index(b"\n", cut + 1)
                    cut += start + 1
            if cut < 0:
                f.seek(last)
                f.readline()
                cut = f.tell()
            yield Range(start, cut)
            start = cut
            f.seek(start)


def _lines_of(data: bytes) -> list[bytes]:
    """The lines of a run of whole lines, without their newlines."""
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()  # the piece after the last newline: no line
    return lines


def _work_range(
    options: dict[str, Any], path: str, chunk: Range, part: str, packed: bool
) -> BulkResult:
    # In a worker: read the chunk, convert it, write its records to the part file
    # (packed: as a gzip member). Its lines are numbered from 1: the caller knows
    # where the chunk starts.
    with open(path, "rb") as f:
        f.seek(chunk.start)
        data = f.read(chunk.end - chunk.start)
    result = _work(options, 1, _lines_of(data))
    with open(part, "wb") as f:
        if result.records and packed:
            f.write(gzip_member(b"\n".join(result.records) + b"\n"))
        elif result.records:
            f.write(b"\n".join(result.records))
            f.write(b"\n")
    result.records = []
    return result


class Done(NamedTuple):
    """A chunk converted by :func:`run_ranges`: its result, its part file, where it ends.

    ``part`` is None when the chunk was converted in this process: its
    records are in ``result``.
    """

    result: BulkResult
    part: Path | None
    end: int


def _here(path: str, chunks: Iterable[Range], options: dict[str, Any]) -> Iterator[Done]:
    before = 0
    with open(path, "rb") as f:
        for chunk in chunks:
            f.seek(chunk.start)
            data = f.read(chunk.end - chunk.start)
            result = _work(options, before + 1, _lines_of(data))
            before += result.lines
            yield Done(result, None, chunk.end)


def run_ranges(
    path: str,
    chunks: Iterable[Range],
    options: dict[str, Any],
    jobs: int,
    parts: Path,
    *,
    packed: bool = False,
) -> Generator[Done, None, None]:
    """Each chunk of a JSONL file converted in ``jobs`` processes, in input order.

    With ``jobs`` 1, here, one chunk after the other. Else the workers
    write the converted records to part files in a new folder under
    ``parts`` (beside the output, so that appending them is a copy inside
    the file system). A part file is removed when the caller asks for the
    next chunk, and the folder when the run ends or stops. The problems'
    line numbers count from the start of the file. ``packed``: the workers
    write each part as a gzip member (they compress side by side).
    """
    if jobs <= 1:
        yield from _here(path, chunks, options)
        return
    folder = Path(tempfile.mkdtemp(prefix=".chatcodec-", suffix=".parts", dir=parts))
    before = 0  # lines in the chunks handed back so far
    parts_of = ((chunk, folder / f"{n}.jsonl") for n, chunk in enumerate(chunks))
    calls = (
        (_work_range, (options, path, chunk, str(part), packed), (part, chunk.end))
        for chunk, part in parts_of
    )
    try:
        for result, (part, end) in _in_order(calls, jobs):
            if before:
                replace = msgspec.structs.replace
                result.problems = [replace(p, line=p.line + before) for p in result.problems]
                result.ids = [(line + before, key) for line, key in result.ids]
            before += result.lines
            yield Done(result, part, end)
            part.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
