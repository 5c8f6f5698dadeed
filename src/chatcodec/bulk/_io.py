"""Files for the bulk command: reading records, writing output that appears whole.

Input is a path or ``-`` (stdin), plain, ``.gz`` or ``.zst`` (zstd needs the
``zstd`` extra). Records are JSONL, or one JSON array: a ``.json`` file, or
input whose first line opens an array it does not close. Output goes to a
temporary file beside the target, renamed over it only once everything is
written: an interrupted run leaves no file that looks complete.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from .._codec import decode_json
from .._errors import ChatCodecError

__all__ = ["GZIP_LEVEL", "Input", "Output", "UsageError", "gzip_member"]


class UsageError(ChatCodecError, ValueError):
    """A file cannot be opened or an option cannot be met (exit status 2)."""


def _suffix(path: str) -> tuple[str, str]:
    """The compression (``""``, ``"gz"``, ``"zst"``) and the suffix under it."""
    name = path.lower()
    for compression in ("gz", "zst"):
        if name.endswith("." + compression):
            return compression, Path(name[: -len(compression) - 1]).suffix
    return "", Path(name).suffix


def _zstd() -> Any:
    try:
        import zstandard
    except ImportError:
        raise UsageError(
            "reading or writing .zst needs the zstandard package: pip install 'chatcodec[zstd]'"
        ) from None
    return zstandard


class _Counting(io.RawIOBase):
    """A raw file that counts the bytes read through it (for progress)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        # read1: what is there, without waiting to fill the buffer (a pipe
        # may hold one line for a long time).
        read = getattr(self.raw, "read1", self.raw.read)
        data = read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        if self.raw is not sys.stdin.buffer:
            self.raw.close()
        super().close()


class Input:
    """The records of an input file, with how many bytes of it were read."""

    def __init__(self, path: str) -> None:
        self.path = path
        compression, suffix = _suffix(path)
        if path == "-":
            raw: IO[bytes] = sys.stdin.buffer
            self.size: int | None = None
            regular = False
        else:
            try:
                raw = open(path, "rb")  # noqa: SIM115  # closed by close()
                info = os.fstat(raw.fileno())
                self.size = info.st_size
                regular = stat.S_ISREG(info.st_mode)
            except OSError as exc:
                raise UsageError(f"cannot read {path}: {exc.strerror}") from None
        self._counter = _Counting(raw)
        self._buffered = io.BufferedReader(self._counter, 1 << 20)
        stream: IO[bytes] = self._buffered
        if compression == "gz":
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
        elif compression == "zst":
            # Every frame: a file written in parts (pzstd, zstd -T) has several.
            reader = _zstd().ZstdDecompressor().stream_reader(stream, read_across_frames=True)
            stream = io.BufferedReader(reader, 1 << 20)
        self._stream = stream
        self._array = suffix == ".json"
        self._regular = regular
        self._compressed = bool(compression)

    @property
    def plain(self) -> bool:
        """A regular, uncompressed file of JSONL: a worker can read any part of it.

        Told once :meth:`records` has read the first record (which says
        whether the file is one JSON array instead).
        """
        return self._regular and not self._compressed and not self._array

    @property
    def bytes_read(self) -> int:
        """Bytes of the file (compressed, if it is) read so far."""
        return self._counter.count

    def records(self) -> Iterator[bytes]:
        """Each record's bytes, in order: lines, or the elements of one JSON array."""
        try:
            first = self._stream.readline()
            while first and not first.strip():
                yield first
                first = self._stream.readline()
            if not first:
                return
            if self._array or (first.lstrip()[:1] == b"[" and not _complete(first)):
                self._array = True
                data = first + self._stream.read()
                for item in decode_json(data, list[msgspec.Raw]):
                    yield bytes(item)
                return
            yield first
            yield from self._stream
        except (OSError, EOFError) as exc:
            raise UsageError(f"cannot read {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the file (stdin is left open)."""
        self._stream.close()
        self._buffered.close()


def _complete(line: bytes) -> bool:
    try:
        msgspec.json.decode(line)
    except msgspec.DecodeError:
        return False
    return True


GZIP_LEVEL = 6  # gzip's own default: Python's (9) is about twice as slow for little gain


def gzip_member(data: bytes) -> bytes:
    """``data`` as one gzip member: members written one after another make one gzip file.

    Workers compress their parts so; the members carry no name and no time,
    so that the same input gives the same file.
    """
    return gzip.compress(data, GZIP_LEVEL, mtime=0)


class Output:
    """JSONL written to a temporary file beside ``path``, renamed over it by :meth:`commit`.

    ``compression`` is ``"gz"`` or ``"zst"`` (from OUT's name) or ``""``.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.temp: Path | None = None
        self.compression = ""
        self._packer: IO[bytes] | None = None  # the compressor, made at the first write
        if path == "-":
            self._raw: IO[bytes] = sys.stdout.buffer
            return
        target = Path(path)
        self.compression = _suffix(path)[0]
        self._name = target.name[: -len(".gz")]  # the name in the gzip header: the file's
        self.temp = target.with_name(f".{target.name}.{os.getpid()}.part")
        try:
            self._raw = open(self.temp, "wb")  # noqa: SIM115  # closed by commit() or abort()
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror}") from None
        except BaseException:  # interrupted as the file was made
            self.temp.unlink(missing_ok=True)
            raise

    @property
    def stream(self) -> IO[bytes]:
        """Where records are written: the file, or its compressor."""
        if self._packer is None and self.compression == "gz":
            packer = gzip.GzipFile(self._name, "wb", GZIP_LEVEL, fileobj=self._raw)
            self._packer = packer  # type: ignore[assignment]
        elif self._packer is None and self.compression == "zst":
            self._packer = _zstd().ZstdCompressor().stream_writer(self._raw, closefd=False)
        return self._packer or self._raw

    def _end_packer(self) -> None:
        """End what the compressor holds (a gzip member, a zstd frame); the file stays open."""
        if self._packer is not None:
            self._packer.close()
            self._packer = None

    def write(self, records: list[bytes]) -> None:
        """Write records, one per line."""
        if records:
            stream = self.stream
            stream.write(b"\n".join(records))
            stream.write(b"\n")

    @property
    def folder(self) -> Path | None:
        """The folder the output is written in (None for stdout)."""
        return None if self.temp is None else self.temp.parent

    def append(self, path: Path, *, packed: bool = False) -> None:
        """Write a file's lines (a worker's part) after what is written.

        ``packed``: the part is already compressed as this output is (gzip
        members follow one another). Into an uncompressed file, or a packed
        part, the kernel copies the bytes (``copy_file_range``) without
        reading them into this process.
        """
        if packed:
            self._end_packer()
        with open(path, "rb") as part:
            stream = self._raw if packed else self.stream
            if stream is self._raw:
                self._raw.flush()
                _copy_range(part.fileno(), self._raw.fileno())
            shutil.copyfileobj(part, stream, 1 << 20)  # what the kernel did not copy

    def commit(self) -> None:
        """Finish the file and put it in place."""
        if self.temp is None:
            self._raw.flush()
            return
        if self.compression and self._raw.tell() == 0:
            self.stream.write(b"")  # an empty file is still a valid compressed one
        self._end_packer()
        self._raw.close()
        os.replace(self.temp, self.path)
        self.temp = None

    def abort(self) -> None:
        """Remove what was written (stdout is only flushed)."""
        if self.temp is None:
            return
        try:
            self._end_packer()
            self._raw.close()
        finally:
            self.temp.unlink(missing_ok=True)
            self.temp = None


def _copy_range(source: int, target: int) -> None:
    """Copy from ``source`` to ``target`` inside the kernel, as far as it can.

    Both files' positions move past what was copied: the caller copies the
    rest, if any (another file system, a pipe, a file opened to append, a
    system without ``copy_file_range``).
    """
    copy = getattr(os, "copy_file_range", None)  # Linux only
    while copy is not None:
        try:
            if not copy(source, target, 1 << 30):
                return
        except OSError:
            return
