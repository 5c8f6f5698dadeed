"""File references: the part's own rules, and resolution against a workspace."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

import chatcodec as cc
from chatcodec import FileReference, resolve_file_references
from chatcodec.providers._lower import EMPTY, UNREAD_IMAGE


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    (root / "README.md").write_text("# Title\n")
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


def ask(*parts: cc.ContentPart) -> list[cc.Message]:
    return [cc.system("Be brief."), cc.user(["Look:", *parts])]


def resolved(messages: list[cc.Message], root: Path, **options: object) -> FileReference:
    out, _ = resolve_file_references(messages, root=root, **options)  # type: ignore[arg-type]
    part = out[1].content[1]  # type: ignore[attr-defined]
    assert isinstance(part, FileReference)
    return part


class TestPart:
    """The part refuses paths that are wrong on their face."""

    @pytest.mark.parametrize(
        ("path", "rule"),
        [
            ("", "must not be empty"),
            ("a\0b", "must not contain NUL"),
            ("../x", "must not contain '..'"),
            ("a/../../x", "must not contain '..'"),
            ("a//b", "must be normalized (no '.', '//' or trailing '/')"),
            ("./a", "must be normalized (no '.', '//' or trailing '/')"),
            ("a/", "must be normalized (no '.', '//' or trailing '/')"),
            ("a\\b", "must use / as the separator"),
        ],
    )
    def test_bad_paths(self, path: str, rule: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            FileReference(path)
        assert (info.value.rule, info.value.path) == (rule, "$.path")

    @pytest.mark.parametrize(
        ("fields", "path"),
        [
            ({"start_line": 0}, "$.start_line"),
            ({"end_line": 3}, "$.end_line"),
            ({"start_line": 5, "end_line": 4}, "$.end_line"),
            ({"status": "resolved"}, "$.content"),
            ({"status": "failed"}, "$.error"),
        ],
    )
    def test_bad_fields(self, fields: dict[str, object], path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            FileReference("a.py", **fields)  # type: ignore[arg-type]
        assert info.value.path == path

    def test_good(self) -> None:
        part = FileReference("/abs/a.py", start_line=3, end_line=3)
        assert part.lines == "3-3"
        assert FileReference("a.py", start_line=2).lines == "2-"
        assert FileReference("a.py").lines == ""

    def test_round_trips_in_a_user_message(self) -> None:
        message = cc.user(["see", FileReference("src/app.py", start_line=2, end_line=4)])
        for fmt in ("json", "msgpack"):
            assert cc.decode(cc.encode(message, format=fmt), format=fmt) == message

    def test_decode_checks_the_path(self) -> None:
        body = b'{"role":"user","content":[{"type":"file_reference","path":"../x"}]}'
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(body)
        assert info.value.path == "$.content[0].path"


class TestResolve:
    """Resolution reads under the root only, and reports every refusal."""

    def test_relative_with_range(self, workspace: Path) -> None:
        part = resolved(ask(FileReference("src/app.py", start_line=2, end_line=3)), workspace)
        assert (part.status, part.content, part.error) == ("resolved", "2\tline 2\n3\tline 3", None)

    def test_whole_file_and_open_range(self, workspace: Path) -> None:
        assert resolved(ask(FileReference("README.md")), workspace).content == "1\t# Title"
        part = resolved(ask(FileReference("src/app.py", start_line=9)), workspace)
        assert part.content == "9\tline 9\n10\tline 10"

    def test_absolute_inside(self, workspace: Path) -> None:
        path = (workspace / "README.md").resolve().as_posix()
        assert resolved(ask(FileReference(path)), workspace).status == "resolved"

    def test_absolute_outside(self, workspace: Path) -> None:
        path = (workspace.parent / "secret.txt").resolve().as_posix()
        messages = ask(FileReference(path))
        out, report = resolve_file_references(messages, root=workspace)
        part = out[1].content[1]  # type: ignore[attr-defined]
        assert (part.status, part.error) == ("failed", "the file is outside the workspace root")
        assert report == [cc.Problem("$[1].content[1]", "the file is outside the workspace root")]
        assert "outside\n" not in repr(report)

    def test_symlink_escape(self, workspace: Path) -> None:
        os.symlink(workspace.parent / "secret.txt", workspace / "link.txt")
        part = resolved(ask(FileReference("link.txt")), workspace)
        assert (part.status, part.error) == ("failed", "the file is outside the workspace root")

    def test_symlink_inside_is_fine(self, workspace: Path) -> None:
        os.symlink(workspace / "README.md", workspace / "readme-link")
        assert resolved(ask(FileReference("readme-link")), workspace).status == "resolved"

    def test_missing_file(self, workspace: Path) -> None:
        part = resolved(ask(FileReference("nope.txt")), workspace)
        assert (part.status, part.error) == ("failed", "the file does not exist")

    def test_missing_root(self, tmp_path: Path) -> None:
        part = resolved(ask(FileReference("a.txt")), tmp_path / "absent")
        assert (part.status, part.error) == ("failed", "the workspace root does not exist")

    def test_range_after_the_end(self, workspace: Path) -> None:
        part = resolved(ask(FileReference("src/app.py", start_line=11)), workspace)
        assert part.error == "the range starts after the last line (10)"

    def test_range_ending_after_the_end_fails(self, workspace: Path) -> None:
        messages = ask(FileReference("src/app.py", start_line=10, end_line=12))
        out, report = resolve_file_references(messages, root=workspace)
        part = out[1].content[1]  # type: ignore[attr-defined]
        assert (part.status, part.error) == ("failed", "the range ends after the last line (10)")
        assert report == [cc.Problem("$[1].content[1]", "the range ends after the last line (10)")]
        ok = ask(FileReference("src/app.py", start_line=9, end_line=10))
        assert resolved(ok, workspace).status == "resolved"

    def test_allow_patterns(self, workspace: Path) -> None:
        messages = ask(FileReference("README.md"))
        assert resolved(messages, workspace, allow=["src/*"]).error == "the file is not allowed"
        assert resolved(messages, workspace, allow=["*.md"]).status == "resolved"

    def test_not_text_not_a_file_too_large(self, workspace: Path) -> None:
        assert resolved(ask(FileReference("blob.bin")), workspace).error == "not UTF-8 text"
        assert resolved(ask(FileReference("src")), workspace).error == "not a regular file"
        part = resolved(ask(FileReference("src/app.py")), workspace, max_bytes=10)
        assert part.error == "larger than 10 bytes"

    def test_only_pending_references_are_read(self, workspace: Path) -> None:
        done = FileReference("README.md", status="resolved", content="kept")
        messages = ask(done)
        out, report = resolve_file_references(messages, root=workspace)
        assert out[1] is messages[1]
        assert report == []

    def test_other_messages_are_the_same_objects(self, workspace: Path) -> None:
        messages = ask(FileReference("README.md"))
        out, _ = resolve_file_references(messages, root=workspace)
        assert out[0] is messages[0]
        assert out[1] is not messages[1]
        assert msgspec.structs.replace(out[1], content=messages[1].content) == messages[1]


PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)
JPEG = b"\xff\xd8\xff\xe0" + bytes(16)
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(8)


@pytest.fixture
def pictures(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "shots").mkdir(parents=True)
    (root / "shots" / "a.png").write_bytes(PNG)
    (root / "shots" / "b photo.jpg").write_bytes(JPEG)
    (root / "shots" / "c.bin").write_bytes(WEBP)
    (root / "notes.txt").write_text("not an image\n")
    (tmp_path / "outside.png").write_bytes(PNG)
    return root


def show(url: str, **fields: object) -> list[cc.Message]:
    return [cc.system("Be brief."), cc.user(["Look:", cc.ImagePart(url=url, **fields)])]  # type: ignore[arg-type]


def read_image(
    messages: list[cc.Message], root: Path, **options: object
) -> tuple[cc.ImagePart, list[cc.Problem]]:
    out, report = cc.resolve_image_files(messages, root=root, **options)  # type: ignore[arg-type]
    part = out[1].content[1]  # type: ignore[attr-defined]
    assert isinstance(part, cc.ImagePart)
    return part, report


class TestResolveImages:
    """An image naming a local file is read only by resolve_image_files, under the root."""

    def test_relative_absolute_and_escaped(self, pictures: Path) -> None:
        absolute = (pictures / "shots" / "a.png").resolve().as_posix()
        for url, data, media_type in [
            ("file:shots/a.png", PNG, "image/png"),
            (f"file://{absolute}", PNG, "image/png"),
            (f"file://localhost{absolute}", PNG, "image/png"),
            ("file:shots/b%20photo.jpg", JPEG, "image/jpeg"),
            ("file:shots/c.bin", WEBP, "image/webp"),  # by its first bytes
        ]:
            part, report = read_image(show(url, detail="high", recognition="vision"), pictures)
            assert report == [], url
            assert part == cc.ImagePart.from_bytes(
                data, media_type, detail="high", recognition="vision"
            )

    @pytest.mark.parametrize(
        ("url", "rule"),
        [
            ("file:../outside.png", "must not contain '..'"),
            ("file:shots/./a.png", "must be normalized (no '.', '//' or trailing '/')"),
            ("file:missing.png", "the file does not exist"),
            ("file://example.com/shots/a.png", "a file URL on another host"),
            ("file:", "must not be empty"),
            ("file:a%00.png", "must not contain NUL"),
            ("file:notes.txt", "not an image (PNG, JPEG, GIF or WebP)"),
            ("file:shots", "not a regular file"),
        ],
    )
    def test_refusals_keep_the_url(self, pictures: Path, url: str, rule: str) -> None:
        part, report = read_image(show(url), pictures)
        assert part.url == url
        assert part.data is None
        assert report == [cc.Problem("$[1].content[1].url", rule)]

    def test_outside_the_root(self, pictures: Path) -> None:
        outside = (pictures.parent / "outside.png").resolve().as_posix()
        part, report = read_image(show(f"file://{outside}"), pictures)
        assert report == [
            cc.Problem("$[1].content[1].url", "the file is outside the workspace root")
        ]
        os.symlink(pictures.parent / "outside.png", pictures / "link.png")
        part, report = read_image(show("file:link.png"), pictures)
        assert part.data is None
        assert report[0].rule == "the file is outside the workspace root"

    def test_limits_and_patterns(self, pictures: Path) -> None:
        _, report = read_image(show("file:shots/a.png"), pictures, max_bytes=8)
        assert report[0].rule == "larger than 8 bytes"
        _, report = read_image(show("file:shots/a.png"), pictures, allow=["*.jpg"])
        assert report[0].rule == "the file is not allowed"
        _, report = read_image(show("file:shots/a.png"), pictures / "absent")
        assert report[0].rule == "the workspace root does not exist"

    def test_nothing_else_is_touched(self, pictures: Path) -> None:
        remote = show("https://example.com/a.png")
        out, report = cc.resolve_image_files(remote, root=pictures)
        assert list(out) == remote
        assert out[1] is remote[1]
        assert report == []
        tool = cc.ToolMessage("c1", (cc.ImagePart(url="file:shots/a.png"),))
        (read,), _ = cc.resolve_image_files([tool], root=pictures)
        assert read.content[0].data is not None  # type: ignore[attr-defined]

    def test_decoding_and_encoding_never_read_the_file(self, pictures: Path) -> None:
        from chatcodec import providers

        message = cc.decode(
            b'{"role":"user","content":[{"type":"image","url":"file:shots/a.png"}]}'
        )
        assert isinstance(message, cc.UserMessage)
        image = message.content[0]
        assert isinstance(image, cc.ImagePart)
        assert image.data is None
        request = cc.Request((message,), model="m", max_tokens=10)
        for name in providers.NAMES:
            losses: list[cc.Loss] = []
            body = providers.get(name).encode_request(request, losses=losses)
            assert b"shots/a.png" not in body  # a local path is never sent
            assert [(loss.path, loss.reason) for loss in losses] == [
                ("$.messages[0].content[0]", UNREAD_IMAGE),
                ("$.messages[0]", EMPTY),
            ]
        (read,), _ = cc.resolve_image_files([message], root=pictures)
        body = providers.get("openai").encode_request(cc.Request((read,), model="m"))  # type: ignore[arg-type]
        assert b"data:image/png;base64," in body
