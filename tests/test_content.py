from __future__ import annotations

import base64
from typing import Any

import msgspec
import pytest

import chatcodec as cc


class TestParts:
    """Each part checks it has exactly one source."""

    def test_image(self) -> None:
        assert cc.ImagePart(url="https://x").url == "https://x"
        assert cc.ImagePart(data="AAAA", media_type="image/png").data == "AAAA"
        with pytest.raises(cc.ValidationError, match="exactly one of url and data"):
            cc.ImagePart()
        with pytest.raises(cc.ValidationError, match="exactly one of url and data"):
            cc.ImagePart(url="u", data="AAAA", media_type="image/png")
        with pytest.raises(cc.ValidationError) as info:
            cc.ImagePart(data="AAAA")
        assert info.value.path == "$.media_type"

    def test_image_detail_is_checked_on_decode(self) -> None:
        with pytest.raises(
            cc.ValidationError, match=r"Invalid enum value - at `\$.content\[0\].detail`"
        ):
            cc.decode(b'{"role":"user","content":[{"type":"image","url":"u","detail":"max"}]}')

    def test_audio(self) -> None:
        assert cc.AudioPart(url="u").url == "u"
        with pytest.raises(cc.ValidationError):
            cc.AudioPart()
        with pytest.raises(cc.ValidationError, match="must be set when data is set"):
            cc.AudioPart(data="AAAA")

    def test_file(self) -> None:
        assert cc.FilePart(file_id="file-1").file_id == "file-1"
        assert cc.FilePart(data="AAAA", filename="a.pdf").filename == "a.pdf"
        with pytest.raises(cc.ValidationError, match="exactly one of url, data and file_id"):
            cc.FilePart()
        with pytest.raises(cc.ValidationError):
            cc.FilePart(url="u", file_id="f")

    def test_from_bytes(self) -> None:
        image = cc.ImagePart.from_bytes(b"\x89PNG", "image/png", detail="high")
        assert base64.b64decode(image.data or "") == b"\x89PNG"
        assert (image.media_type, image.detail) == ("image/png", "high")
        audio = cc.AudioPart.from_bytes(b"RIFF", "audio/wav")
        assert base64.b64decode(audio.data or "") == b"RIFF"

    def test_unknown_type_is_kept_verbatim(self) -> None:
        data = b'{"role":"user","content":[{"type":"video", "url":"u"}]}'
        message = cc.decode(data)
        assert isinstance(message, cc.UserMessage)
        part = message.content[0]
        assert isinstance(part, cc.UnknownPart)
        assert part.tag == "video"
        assert cc.encode(message) == data  # byte for byte, spacing and all

    def test_a_tag_that_is_not_a_string_is_refused(self) -> None:
        with pytest.raises(cc.ValidationError) as info:
            cc.decode(b'{"role":"user","content":[{"type":7,"url":"u"}]}')
        assert (info.value.rule, info.value.path) == ("Expected `str`", "$.content[0].type")


NUMBER: Any = 123456789


class TestTypesAtConstruction:
    """A part refuses a text field of another type where it is built."""

    @pytest.mark.parametrize(
        ("build", "path"),
        [
            (lambda: cc.TextPart(NUMBER), "$.text"),
            (lambda: cc.RefusalPart(NUMBER), "$.text"),
            (lambda: cc.ReasoningPart(NUMBER), "$.text"),
            (lambda: cc.ImagePart(url=NUMBER), "$.url"),
            (lambda: cc.AudioPart(data="AA==", media_type=NUMBER), "$.media_type"),
            (lambda: cc.FilePart(file_id=NUMBER), "$.file_id"),
            (lambda: cc.OpaquePart(NUMBER, msgspec.Raw(b"{}")), "$.provider"),
            (lambda: cc.McpResource(server="s", uri="u", content=NUMBER), "$.content"),
            (lambda: cc.McpResource(server=NUMBER, uri="u", content="c"), "$.server"),
        ],
    )
    def test_refused(self, build: Any, path: str) -> None:
        with pytest.raises(cc.ValidationError) as info:
            build()
        assert (info.value.path, info.value.rule) == (path, "must be a string")
        assert str(NUMBER) not in str(info.value)

    def test_opaque_data_is_raw(self) -> None:
        with pytest.raises(cc.ValidationError, match=r"must be msgspec\.Raw JSON"):
            cc.OpaquePart("anthropic", NUMBER)

    def test_parts_round_trip(self) -> None:
        message = cc.user(["look", cc.ImagePart(data="AA==", media_type="image/png")])
        assert cc.decode(cc.encode(message)) == message
