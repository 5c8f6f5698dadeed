"""JSONL: one record per line, read and written as a stream in bounded memory."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

import msgspec

from ._codec import JSON_ENCODER, decode, encode_error
from ._conversation import Conversation
from ._errors import ChatCodecError, EncodeError
from ._lenient import decode_lenient, problem_of
from ._messages import Message
from ._problems import Problem

__all__ = ["JsonlReader", "iter_jsonl", "write_jsonl"]


class JsonlReader:
    """Iterate over the records of a JSONL stream, one line at a time.

    Memory stays bounded by the longest line. Blank lines are passed over.
    With ``lenient``, a line that cannot be decoded is skipped and reported in
    :attr:`problems` (``line`` is 1-based) and iteration goes on; otherwise the
    error is raised with the line number in its message and as ``error.line``.
    :attr:`line_num` is the line of the record last yielded.
    """

    def __init__(
        self, lines: Iterable[bytes | str], *, type: Any = Message, lenient: bool = False
    ) -> None:
        self._lines = lines
        self._type = type
        self._lenient = lenient
        self.problems: list[Problem] = []
        """What lenient reading skipped or repaired."""
        self.line_num = 0
        """The 1-based line of the record last yielded."""

    def __iter__(self) -> Iterator[Any]:
        for number, line in enumerate(self._lines, 1):
            if not line.strip():
                continue
            self.line_num = number
            if not self._lenient:
                try:
                    yield decode(line, type=self._type)
                except ChatCodecError as error:
                    raise _at_line(error, number) from None
                continue
            found: list[Problem] = []
            value = self._lenient_line(line, found)
            self.problems.extend(_on_line(p, number) for p in found)
            if value is not None:
                yield value

    def _lenient_line(self, line: bytes | str, found: list[Problem]) -> Any:
        kind = self._type
        try:
            if kind is Message or kind is Conversation or kind == list[Message]:
                value, problems = decode_lenient(line, type=kind)
                found.extend(problems)
                return value
            return decode(line, type=kind)
        except ChatCodecError as error:
            found.append(problem_of(error, "$"))
            return None


def _on_line(problem: Problem, line: int) -> Problem:
    return Problem(problem.path, problem.rule, problem.severity, line)


def _at_line(error: ChatCodecError, line: int) -> ChatCodecError:
    error.line = line  # type: ignore[attr-defined]
    error.args = (f"line {line}: {error}",)
    return error


def iter_jsonl(
    lines: Iterable[bytes | str], *, type: Any = Message, lenient: bool = False
) -> JsonlReader:
    """Read records (messages by default) from JSONL, streaming.

    ``lines`` is any iterable of lines: a file opened in binary or text mode,
    ``sys.stdin.buffer``, a list.  See :class:`JsonlReader`.

    Examples
    --------
    >>> [str(m) for m in iter_jsonl([b'{"role":"user","content":"Hi"}', b""])]
    ['user: 2 chars']
    """
    return JsonlReader(lines, type=type, lenient=lenient)


def write_jsonl(stream: IO[bytes] | IO[str], items: Iterable[Any]) -> int:
    """Write each item as one JSON line; return how many were written.

    ``stream`` may be binary or text (anything with a ``write`` method). One
    buffer is reused for every line.
    """
    text = isinstance(stream, io.TextIOBase) or "b" not in getattr(stream, "mode", "b")
    write: Callable[[Any], object] = stream.write
    buffer = bytearray()
    count = 0
    for item in items:
        try:
            JSON_ENCODER.encode_into(item, buffer)
        except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError) as exc:
            raise EncodeError(f"item {count}: {encode_error(exc)}") from None
        buffer.extend(b"\n")
        if text:
            write(buffer.decode())
        else:
            try:
                write(bytes(buffer))
            except TypeError:  # a text stream that does not say so
                text = True
                write(buffer.decode())
        count += 1
    return count
