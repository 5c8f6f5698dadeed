"""File references and local images, and the two functions that read them.

A :class:`FileReference` names a file (and a line range) in the user's
workspace; an image part may name a local file by a ``file:`` URL. Building
or decoding either never touches the disk: :func:`resolve_file_references`
and :func:`resolve_image_files` are the explicit steps that read files, under
a workspace root only, and return new messages plus a report. They are the
only I/O in the package besides the command line.

Paths are checked twice. The part itself refuses what is wrong on its face:
an empty path, a NUL, a path that is not normalized, a ``..`` segment. The
resolver then refuses what only the disk can tell: an absolute path outside
the root, a symlink that leads out of it, a path ``allow`` does not match.
"""

from __future__ import annotations

import base64
import fnmatch
import mimetypes
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import msgspec

from ._content import FileReference, ImagePart, check_path
from ._errors import ValidationError
from ._messages import ToolMessage, UserMessage
from ._problems import Problem

# FileReference lives with the other parts (in _content); this module reads
# what it names.
__all__ = ["local_path", "resolve_file_references", "resolve_image_files"]


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
        One per failed reference (error), by path in ``messages``. A range
        that starts or ends after the file's last line fails.

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
    patterns = None if allow is None else tuple(allow)
    problems: list[Problem] = []
    real_root = _root(root)
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


def _read(
    path: str, root: Path, patterns: tuple[str, ...] | None, max_bytes: int
) -> tuple[bytes | None, str]:
    """The bytes of the workspace file ``path``, or ``None`` and the rule that refuses it."""
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return None, "the file does not exist"
    if not real.is_relative_to(root):
        return None, "the file is outside the workspace root"
    relative = real.relative_to(root).as_posix()
    if patterns is not None and not any(fnmatch.fnmatch(relative, p) for p in patterns):
        return None, "the file is not allowed"
    if not real.is_file():
        return None, "not a regular file"
    try:
        if real.stat().st_size > max_bytes:
            return None, f"larger than {max_bytes} bytes"
        data = real.read_bytes()
    except OSError:
        return None, "the file cannot be read"
    if len(data) > max_bytes:  # it grew since
        return None, f"larger than {max_bytes} bytes"
    return data, ""


def _root(root: str | Path) -> Path | None:
    """The real workspace root, or ``None`` when it is not a directory."""
    try:
        real = Path(root).resolve(strict=True)
    except OSError:
        return None
    return real if real.is_dir() else None


def _resolve(
    part: FileReference,
    root: Path,
    patterns: tuple[str, ...] | None,
    max_bytes: int,
    where: str,
    problems: list[Problem],
) -> FileReference:
    data, rule = _read(part.path, root, patterns, max_bytes)
    if data is None:
        return _failed(part, rule, where, problems)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _failed(part, "not UTF-8 text", where, problems)
    lines = text.splitlines()
    first = part.start_line or 1
    last = part.end_line if part.end_line is not None else len(lines)
    if part.start_line is not None and first > len(lines):
        return _failed(
            part, f"the range starts after the last line ({len(lines)})", where, problems
        )
    if last > len(lines):
        # The lines asked for are not all there: the reference fails, as one
        # whose range starts past the end does (the application asked for
        # lines the file does not have; sending fewer would hide it).
        return _failed(part, f"the range ends after the last line ({len(lines)})", where, problems)
    numbered = "\n".join(f"{number}\t{lines[number - 1]}" for number in range(first, last + 1))
    return msgspec.structs.replace(part, status="resolved", content=numbered, error=None)


# -- images by local path ---------------------------------------------------------

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


ELSEWHERE = "\0"
"""The path of a ``file:`` URL on another host (a NUL: no file has it)."""


def local_path(url: str | None) -> str | None:
    """The path a ``file:`` URL names (``None`` for any other URL).

    ``file:///abs/path`` and ``file://localhost/abs/path`` name an absolute
    path, ``file:rel/path`` one relative to the workspace root;
    percent-escapes are decoded. A ``file:`` URL on another host names
    :data:`ELSEWHERE`, which no workspace holds.
    """
    if url is None or url[:5].lower() != "file:":
        return None
    rest = url[5:]
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        if host not in ("", "localhost"):
            return ELSEWHERE
        rest = slash + path
    return unquote(rest)


def _media_type(data: bytes, path: str) -> str | None:
    """The image type of ``data``: by its first bytes, else by the file's extension."""
    for signature, media_type in _SIGNATURES:
        if data.startswith(signature):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    guessed, _ = mimetypes.guess_type(path)
    return guessed if guessed is not None and guessed.startswith("image/") else None


def resolve_image_files(
    messages: Sequence[msgspec.Struct],
    *,
    root: str | Path,
    allow: Iterable[str] | None = None,
    max_bytes: int = 20_000_000,
) -> tuple[tuple[msgspec.Struct, ...], list[Problem]]:
    r"""Read the images of user and tool messages that name a local file.

    An :class:`~chatcodec.ImagePart` whose ``url`` is a ``file:`` URL
    (``file:shots/a.png`` relative to the root, ``file:///abs/a.png`` inside
    it) becomes the same part with the file's bytes in base64 ``data`` and
    its ``media_type`` (from its first bytes: PNG, JPEG, GIF, WebP; else from
    the extension). The rules are those of :func:`resolve_file_references`:
    under the workspace root only, no ``..``, no symlink out of the root,
    ``allow`` patterns, a size limit. Nothing else reads these files, and an
    image left unread is never sent to a provider (the encoders leave it
    out and report it).

    Parameters
    ----------
    messages : sequence of messages
        A conversation; user and tool messages may hold images.
    root : str or Path
        The workspace root.
    allow : iterable of str, optional
        Glob patterns (against the root-relative POSIX path) a file must
        match. Everything under the root when omitted.
    max_bytes : int, default 20_000_000
        Larger files are refused.

    Returns
    -------
    tuple of messages
        The messages, with each local image read. An image that could not be
        read keeps its URL. Messages without local images are the same
        objects.
    list of Problem
        One error per image that could not be read, by its path in
        ``messages``; the rule never quotes the file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from chatcodec import ImagePart, user
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = pathlib.Path(tmp, "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(8))
    ...     msgs = [user(["What is this?", ImagePart(url="file:dot.png", detail="low")])]
    ...     resolved, report = resolve_image_files(msgs, root=tmp)
    >>> image = resolved[0].content[1]
    >>> image.url, image.media_type, image.data, image.detail, report
    (None, 'image/png', 'iVBORw0KGgoAAAAAAAAAAA==', 'low', [])
    """
    patterns = None if allow is None else tuple(allow)
    real_root = _root(root)
    problems: list[Problem] = []
    out: list[msgspec.Struct] = []
    for index, message in enumerate(messages):
        content = getattr(message, "content", None)
        if not isinstance(message, UserMessage | ToolMessage) or not isinstance(content, tuple):
            out.append(message)
            continue
        parts: list[Any] = list(content)
        changed = False
        for n, part in enumerate(parts):
            path = local_path(part.url) if isinstance(part, ImagePart) else None
            if path is None:
                continue
            where = f"$[{index}].content[{n}].url"
            rule = _image_rule(path, real_root)
            data: bytes | None = None
            if not rule and real_root is not None:
                data, rule = _read(path, real_root, patterns, max_bytes)
            media_type = _media_type(data, path) if data is not None else None
            if data is not None and media_type is None:
                rule = "not an image (PNG, JPEG, GIF or WebP)"
            if rule or data is None:
                problems.append(Problem(where, rule))
                continue
            encoded = base64.b64encode(data).decode("ascii")
            parts[n] = msgspec.structs.replace(part, url=None, data=encoded, media_type=media_type)
            changed = True
        out.append(msgspec.structs.replace(message, content=tuple(parts)) if changed else message)
    return tuple(out), problems


def _image_rule(path: str, root: Path | None) -> str:
    """Why the path of a ``file:`` URL cannot be read, on its face (``""``: it may be)."""
    if root is None:
        return "the workspace root does not exist"
    if path == ELSEWHERE:
        return "a file URL on another host"
    try:
        check_path(path)
    except ValidationError as error:
        return error.rule
    return ""
