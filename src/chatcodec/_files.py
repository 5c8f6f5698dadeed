"""File references in user content, and the one function that reads them.

A :class:`FileReference` names a file (and a line range) in the user's
workspace. Building or decoding one never touches the disk:
:func:`resolve_file_references` is the explicit step that reads files, under a
workspace root only, and returns new messages plus a report. It is the only
I/O in the package besides the command line.

Paths are checked twice. The part itself refuses what is wrong on its face:
an empty path, a NUL, a path that is not normalized, a ``..`` segment. The
resolver then refuses what only the disk can tell: an absolute path outside
the root, a symlink that leads out of it, a path ``allow`` does not match.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

import msgspec

from ._errors import ValidationError
from ._problems import Problem
from ._record import Record

__all__ = ["FileReference", "resolve_file_references"]

Resolution = Literal["pending", "resolved", "failed"]


class FileReference(Record, frozen=True, tag_field="type", tag="file_reference"):
    """A file (or some of its lines) the user points at.

    Parameters
    ----------
    path : str
        Relative to the workspace root, or absolute inside it; POSIX
        separators, normalized, without ``..``.
    start_line, end_line : int, optional
        1-indexed, inclusive; ``end_line`` needs ``start_line`` and is not
        before it. Without them, the whole file.
    status : {"pending", "resolved", "failed"}, default "pending"
        Whether :func:`resolve_file_references` has read it.
    content : str, optional
        The lines read, each prefixed with its number and a tab (resolved).
    error : str, optional
        Why it could not be read (failed): a rule, never file content.

    Examples
    --------
    >>> FileReference("src/app.py", start_line=10, end_line=20)
    FileReference(path=<10 chars>, start_line=10, end_line=20)
    >>> FileReference("../etc/passwd")
    Traceback (most recent call last):
    chatcodec.ValidationError: must not contain '..' - at `$.path`
    """

    path: str
    start_line: int | None = None
    end_line: int | None = None
    status: Resolution = "pending"
    content: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        check_path(self.path)
        start, end = self.start_line, self.end_line
        if start is not None and start < 1:
            raise ValidationError("must be at least 1", "$.start_line")
        if end is not None and (start is None or end < start):
            raise ValidationError("needs start_line and must not be before it", "$.end_line")
        if self.status == "resolved" and self.content is None:
            raise ValidationError("must be set when resolved", "$.content")
        if self.status == "failed" and not self.error:
            raise ValidationError("must be set when failed", "$.error")

    @property
    def lines(self) -> str:
        """The range as text: ``"10-20"``, ``"10-"`` or ``""`` (whole file)."""
        if self.start_line is None:
            return ""
        return f"{self.start_line}-{self.end_line if self.end_line is not None else ''}"


def check_path(path: str, where: str = "$.path") -> None:
    """Raise unless ``path`` is a plausible, normalized workspace path."""
    if not path:
        raise ValidationError("must not be empty", where)
    if "\0" in path:
        raise ValidationError("must not contain NUL", where)
    if "\\" in path:
        raise ValidationError("must use / as the separator", where)
    if ".." in path.split("/"):
        raise ValidationError("must not contain '..'", where)
    if posixpath.normpath(path) != path:
        raise ValidationError("must be normalized (no '.', '//' or trailing '/')", where)


def resolve_file_references(
    messages: Sequence[msgspec.Struct],
    *,
    root: str | Path,
    allow: Iterable[str] | None = None,
    max_bytes: int = 1_000_000,
) -> tuple[tuple[msgspec.Struct, ...], list[Problem]]:
    r"""Read the pending file references of user messages from a workspace.

    Parameters
    ----------
    messages : sequence of messages
        A conversation; only user messages hold file references.
    root : str or Path
        The workspace root. Relative paths resolve against it; absolute paths
        must lie inside it; a symlink whose target leaves it is refused.
    allow : iterable of str, optional
        Glob patterns (``fnmatch``, against the root-relative POSIX path) a
        file must match, e.g. ``["src/*", "*.md"]``. Everything under the
        root when omitted.
    max_bytes : int, default 1_000_000
        Larger files are refused.

    Returns
    -------
    tuple of messages
        The messages, with each pending reference now ``resolved`` (its lines
        in ``content``) or ``failed`` (the reason in ``error``). Messages
        without pending references are the same objects.
    list of Problem
        One per failed reference (error), and per range cut at the end of
        the file (warning), by path in ``messages``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from chatcodec import user
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = pathlib.Path(tmp, "notes.txt").write_text("one\ntwo\nthree\n")
    ...     msgs = [user(["Read this:", FileReference("notes.txt", start_line=2, end_line=3)])]
    ...     resolved, report = resolve_file_references(msgs, root=tmp)
    >>> resolved[0].content[1].content, report
    ('2\ttwo\n3\tthree', [])
    """
    from ._messages import UserMessage

    patterns = None if allow is None else tuple(allow)
    base = Path(root)
    problems: list[Problem] = []
    real_root: Path | None
    try:
        real_root = base.resolve(strict=True)
    except OSError:
        real_root = None
    if real_root is not None and not real_root.is_dir():
        real_root = None
    out: list[msgspec.Struct] = []
    for index, message in enumerate(messages):
        content = getattr(message, "content", None)
        if not isinstance(message, UserMessage) or not isinstance(content, tuple):
            out.append(message)
            continue
        parts = list(content)
        changed = False
        for n, part in enumerate(parts):
            if not isinstance(part, FileReference) or part.status != "pending":
                continue
            where = f"$[{index}].content[{n}]"
            if real_root is None:
                parts[n] = _failed(part, "the workspace root does not exist", where, problems)
            else:
                parts[n] = _resolve(part, real_root, patterns, max_bytes, where, problems)
            changed = True
        out.append(msgspec.structs.replace(message, content=tuple(parts)) if changed else message)
    return tuple(out), problems


def _failed(part: FileReference, rule: str, where: str, problems: list[Problem]) -> FileReference:
    problems.append(Problem(where, rule))
    return msgspec.structs.replace(part, status="failed", error=rule, content=None)


def _resolve(
    part: FileReference,
    root: Path,
    patterns: tuple[str, ...] | None,
    max_bytes: int,
    where: str,
    problems: list[Problem],
) -> FileReference:
    candidate = Path(part.path)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return _failed(part, "the file does not exist", where, problems)
    if not real.is_relative_to(root):
        return _failed(part, "the file is outside the workspace root", where, problems)
    relative = real.relative_to(root).as_posix()
    if patterns is not None and not any(fnmatch.fnmatch(relative, p) for p in patterns):
        return _failed(part, "the file is not allowed", where, problems)
    if not real.is_file():
        return _failed(part, "not a regular file", where, problems)
    try:
        if real.stat().st_size > max_bytes:
            return _failed(part, f"larger than {max_bytes} bytes", where, problems)
        text = real.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return _failed(part, "not UTF-8 text", where, problems)
    except OSError:
        return _failed(part, "the file cannot be read", where, problems)
    lines = text.splitlines()
    first = part.start_line or 1
    last = part.end_line if part.end_line is not None else len(lines)
    if part.start_line is not None and first > len(lines):
        return _failed(
            part, f"the range starts after the last line ({len(lines)})", where, problems
        )
    if last > len(lines):
        problems.append(
            Problem(where, f"the range ends after the last line ({len(lines)})", "warning")
        )
        last = len(lines)
    numbered = "\n".join(f"{number}\t{lines[number - 1]}" for number in range(first, last + 1))
    return msgspec.structs.replace(part, status="resolved", content=numbered, error=None)
