"""Bulk conversion on a Dask cluster (the ``dask`` extra: ``dask[bag]`` and ``distributed``).

The same pure function as every other engine, :func:`chatcodec.convert_lines`,
runs on each partition of a :class:`dask.bag.Bag` of lines
(``map_partitions``); the converted lines go out with ``to_textfiles`` and
the counts come back to the caller, every line accounted for.

Examples
--------
Point a client at a cluster, then convert files the workers can read::

    from distributed import Client
    from chatcodec.dask import convert_files

    with Client("tcp://scheduler:8786"):
        result = convert_files(
            "s3://bucket/requests/*.jsonl", "s3://bucket/claude/*.jsonl",
            source="openai", target="anthropic", max_tokens=1024,
        )
    print(result.counts())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import msgspec

from ._answer_tool import StructuredOutput
from .bulk._core import Plan, convert_lines, repeats
from .bulk._detect import detect
from .bulk._families import normalize
from .bulk._result import BulkResult, Kind
from .providers._options import ToolCallContent

if TYPE_CHECKING:
    import dask.bag as db

__all__ = ["convert_bag", "convert_files"]


def _dask() -> tuple[Any, Any]:
    """dask.bag and dask.compute, imported when first needed: this module imports without them."""
    try:
        import dask.bag
        from dask.base import compute
    except ImportError:
        raise ImportError(
            "chatcodec.dask needs dask[bag] and distributed: pip install 'chatcodec[dask]'"
        ) from None
    return dask.bag, compute


def _convert(
    lines: Sequence[str], first: Sequence[int], options: dict[str, Any]
) -> list[BulkResult]:
    return [convert_lines(lines, first_line=first[0] if first else 1, **options)]


def _records(results: Sequence[BulkResult]) -> list[str]:
    return [record.decode() for result in results for record in result.records]


def _counts(results: Sequence[BulkResult]) -> list[BulkResult]:
    # Copies: the same results feed _records, in whatever order tasks run.
    return [msgspec.structs.replace(result, records=[]) for result in results]


def _count(lines: Sequence[str]) -> list[int]:
    return [sum(1 for _ in lines)]


def convert_bag(
    bag: db.Bag,
    *,
    source: str,
    target: str,
    kind: Kind,
    model: str | None = None,
    max_tokens: int | None = None,
    include_content: bool = False,
    keep_refused: bool = False,
    first_lines: Sequence[int] | None = None,
    tool_call_content: ToolCallContent = "omit",
    structured_output: StructuredOutput = "native",
) -> tuple[db.Bag, db.Bag]:
    """Convert a bag of lines; return the converted lines and the per-partition results.

    Parameters
    ----------
    bag : dask.bag.Bag
        JSON records, one per element (``read_text`` gives lines).
    source, target, kind, model, max_tokens, include_content, keep_refused
        As for :func:`chatcodec.convert_lines`; ``kind`` is required, so that
        every partition reads its records the same way.
    tool_call_content, structured_output
        As for :func:`chatcodec.convert_lines`.
    first_lines : sequence of int, optional
        The number of each partition's first line in the whole input; line
        numbers count from 1 in each partition when left out.

    Returns
    -------
    lines : dask.bag.Bag
        The converted records, as text without newlines, in input order.
    results : dask.bag.Bag
        One :class:`~chatcodec.BulkResult` per partition, its records left
        out: compute it with the lines (``dask.compute``) to convert once.
    """
    # A bad name, kind or option fails here, not on a worker.
    Plan.make(
        source,
        target,
        kind,
        tool_call_content=tool_call_content,
        structured_output=structured_output,
    )
    options = {
        "source": source,
        "target": target,
        "kind": kind,
        "model": model,
        "max_tokens": max_tokens,
        "include_content": include_content,
        "keep_refused": keep_refused,
        "tool_call_content": tool_call_content,
        "structured_output": structured_output,
    }
    starts = list(first_lines) if first_lines is not None else [1] * bag.npartitions
    if len(starts) != bag.npartitions:
        raise ValueError("first_lines must give one line number per partition")
    bags, _ = _dask()
    lines: Any = bag
    firsts = bags.from_sequence(starts, npartitions=bag.npartitions)
    results = lines.map_partitions(_convert, firsts, options)
    return results.map_partitions(_records), results.map_partitions(_counts)


def convert_files(
    paths: str | Sequence[str],
    output: str | Sequence[str],
    *,
    source: str,
    target: str,
    kind: Kind | None = None,
    model: str | None = None,
    max_tokens: int | None = None,
    include_content: bool = False,
    keep_refused: bool = False,
    blocksize: int | str | None = None,
    number_lines: bool = True,
    tool_call_content: ToolCallContent = "omit",
    structured_output: StructuredOutput = "native",
) -> BulkResult:
    """Convert JSONL files on the current Dask scheduler; return the counts and problems.

    Parameters
    ----------
    paths : str or sequence of str
        Input files or a glob, as ``dask.bag.read_text`` takes them (``.gz``
        and other compressions by extension).
    output : str or sequence of str
        Where ``to_textfiles`` writes: a glob with one ``*`` (one file per
        partition) or one path per partition.
    kind : optional
        Told from the first record when left out.
    blocksize : optional
        Split files into partitions of this many bytes (one partition per
        file when None).
    number_lines : bool, default True
        Count each partition's lines first, so that problems carry line
        numbers in the whole input (a cheap extra read of the input).
    Other parameters are those of :func:`chatcodec.convert_lines`.

    A partition with no record to write (every line failed, refused or
    blank) is written by Dask as a file of one line break: skip such files
    when joining the parts.
    """
    bags, compute = _dask()
    bag = bags.read_text(paths, blocksize=blocksize)
    if kind is None:
        head = [line for line in bag.take(64, npartitions=-1, compute=True) if line.strip()]
        kind = detect(head[0].encode())[0] if head else "request"
    first_lines = None
    if number_lines:
        sizes = bag.map_partitions(_count).compute()
        first_lines = [1 + sum(sizes[:i]) for i in range(len(sizes))]
    lines, results = convert_bag(
        bag,
        source=source,
        target=target,
        kind=kind,
        model=model,
        max_tokens=max_tokens,
        include_content=include_content,
        keep_refused=keep_refused,
        first_lines=first_lines,
        tool_call_content=tool_call_content,
        structured_output=structured_output,
    )
    writes = cast(Any, lines).to_textfiles(output, last_endline=True, compute=False)
    _, parts = compute(writes, results)
    total = BulkResult(kind=kind)
    seen: dict[int, int] = {}
    for part in parts:
        repeats(part, seen, normalize(target))  # batch ids repeated across partitions
        total.add(part)
    return total
